package service

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ServerLimits bound what clients can hold of the server: connections
// (in total and per client address), and the time they have to send a
// request's headers and body. The defaults are those of backfill serve.
type ServerLimits struct {
	// MaxConns is the most connections held at once (default 1024).
	MaxConns int
	// MaxConnsPerClient is the most connections from one IP address
	// (default 128).
	MaxConnsPerClient int
	// HeaderTimeout is the time from a connection's request start to the
	// end of its headers (default 5 s).
	HeaderTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle for that long
	// (default 60 s).
	IdleTimeout time.Duration
	// WriteTimeout bounds the writing of an answer, from the end of the
	// request's headers (default 90 s: the decisions feed long-polls for
	// up to 60 s).
	WriteTimeout time.Duration
}

// overflowSlots is how many connections beyond the limits are answered at
// once (health, or 503), each given overflowTimeout to send its request;
// more are closed at once.
const (
	overflowSlots   = 256
	overflowTimeout = 500 * time.Millisecond
)

func (l *ServerLimits) defaults() {
	if l.MaxConns <= 0 {
		l.MaxConns = 1024
	}
	if l.MaxConnsPerClient <= 0 {
		l.MaxConnsPerClient = 128
	}
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = 5 * time.Second
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = 60 * time.Second
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = 90 * time.Second
	}
}

// Server returns an HTTP server for the API with the limits' timeouts
// (serve it on Listener(ln, lim)). The body timeout is Config.BodyTimeout,
// applied by the handler.
func (s *Service) Server(lim ServerLimits) *http.Server {
	lim.defaults()
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: lim.HeaderTimeout,
		IdleTimeout: lim.IdleTimeout, WriteTimeout: lim.WriteTimeout, MaxHeaderBytes: 16 << 10,
		ErrorLog: nil}
}

// Listener wraps ln so that at most lim.MaxConns connections, and
// lim.MaxConnsPerClient from one address, reach the HTTP server. A
// connection beyond a limit is refused early, without holding a
// goroutine or a descriptor for long: up to 256 at a time get 0.5 s
// to send a request line and headers, and are answered either
// GET /v1/health (so that monitoring sees the service while it is
// flooded) or 503 with Retry-After; beyond those it is closed at once.
func (s *Service) Listener(ln net.Listener, lim ServerLimits) net.Listener {
	lim.defaults()
	return &limitListener{Listener: ln, lim: lim, per: map[string]int{}, slots: make(chan struct{}, overflowSlots), s: s}
}

type limitListener struct {
	net.Listener
	lim   ServerLimits
	s     *Service
	mu    sync.Mutex
	total int
	per   map[string]int
	slots chan struct{}

	refused atomic.Int64
}

func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

// Accept implements net.Listener.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		h := hostOf(c.RemoteAddr())
		l.mu.Lock()
		if l.total >= l.lim.MaxConns || l.per[h] >= l.lim.MaxConnsPerClient {
			l.mu.Unlock()
			l.overflow(c)
			continue
		}
		l.total++
		l.per[h]++
		l.mu.Unlock()
		return &limitConn{Conn: c, l: l, host: h}, nil
	}
}

func (l *limitListener) release(h string) {
	l.mu.Lock()
	l.total--
	if l.per[h]--; l.per[h] <= 0 {
		delete(l.per, h)
	}
	l.mu.Unlock()
}

// overflow answers a connection beyond the limits: health, or 503.
func (l *limitListener) overflow(c net.Conn) {
	l.refused.Add(1)
	if l.s.met != nil {
		l.s.met.refused.Inc()
	}
	select {
	case l.slots <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.slots }()
		defer c.Close()
		c.SetDeadline(time.Now().Add(overflowTimeout))
		req, err := http.ReadRequest(bufio.NewReaderSize(c, 4096))
		if err != nil {
			return
		}
		status, body := http.StatusServiceUnavailable, []byte(`{"error": "too many connections: try again later"}`+"\n")
		extra := "Retry-After: 1\r\n"
		if (req.Method == "GET" || req.Method == "HEAD") && req.URL.Path == "/v1/health" {
			h, st := l.s.healthNow()
			status, extra = st, ""
			body, _ = json.Marshal(h)
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n", status, http.StatusText(status), len(body), extra)
		if req.Method != "HEAD" {
			b.Write(body)
		}
		c.Write(b.Bytes())
	}()
}

type limitConn struct {
	net.Conn
	l    *limitListener
	host string
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.host) })
	return err
}
