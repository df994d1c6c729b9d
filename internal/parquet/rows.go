package parquet

import (
	"fmt"
	"io"
	"os"
	"reflect"
)

// rowFields returns, for a struct type, each tagged field's index, column
// name and type. Fields are bool, int32, int64, float64 or string, tagged
// `parquet:"name"`; untagged fields are ignored.
func rowFields(t reflect.Type) ([]int, []Field, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("parquet: %v is not a struct", t)
	}
	var idx []int
	var fields []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		name := sf.Tag.Get("parquet")
		if name == "" || name == "-" {
			continue
		}
		var typ Type
		switch sf.Type.Kind() {
		case reflect.Bool:
			typ = Bool
		case reflect.Int32:
			typ = Int32
		case reflect.Int64:
			typ = Int64
		case reflect.Float64:
			typ = Double
		case reflect.String:
			typ = String
		default:
			return nil, nil, fmt.Errorf("parquet: field %s of %v: type %v not supported", sf.Name, t, sf.Type)
		}
		idx = append(idx, i)
		fields = append(fields, Field{Name: name, Type: typ})
	}
	return idx, fields, nil
}

// WriteRows writes rows, structs whose fields tagged `parquet:"name"`
// (bool, int32, int64, float64, string) are the columns, required, in
// field order.
func WriteRows[T any](w io.Writer, rows []T) error {
	idx, fields, err := rowFields(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	cols := make([]Column, len(fields))
	for k, fd := range fields {
		c := &cols[k]
		c.Name, c.Type = fd.Name, fd.Type
		for r := range rows {
			v := reflect.ValueOf(&rows[r]).Elem().Field(idx[k])
			switch fd.Type {
			case Bool:
				c.Bools = append(c.Bools, v.Bool())
			case Int32:
				c.Int32s = append(c.Int32s, int32(v.Int()))
			case Int64:
				c.Int64s = append(c.Int64s, v.Int())
			case Double:
				c.Doubles = append(c.Doubles, v.Float())
			case String:
				c.Strings = append(c.Strings, v.String())
			}
		}
	}
	return Write(w, cols)
}

// ReadRows reads the columns named by T's tags (see WriteRows) into a
// slice of T, one per row. Each must be in the file, of the field's type,
// and without nulls; the file's other columns are not read.
func ReadRows[T any](f *File) ([]T, error) {
	idx, fields, err := rowFields(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	rows := make([]T, f.Rows)
	for k, fd := range fields {
		i, ok := f.Lookup(fd.Name)
		if !ok {
			return nil, fmt.Errorf("no column %q", fd.Name)
		}
		if f.Schema[i].Type != fd.Type {
			return nil, fmt.Errorf("column %q is %v, expected %v", fd.Name, f.Schema[i].Type, fd.Type)
		}
		c, err := f.ReadColumn(i)
		if err != nil {
			return nil, err
		}
		for r := range rows {
			if c.IsNull(r) {
				return nil, fmt.Errorf("column %q: row %d is null", fd.Name, r)
			}
			v := reflect.ValueOf(&rows[r]).Elem().Field(idx[k])
			switch fd.Type {
			case Bool:
				v.SetBool(c.Bools[r])
			case Int32:
				v.SetInt(int64(c.Int32s[r]))
			case Int64:
				v.SetInt(c.Int64s[r])
			case Double:
				v.SetFloat(c.Doubles[r])
			case String:
				v.SetString(c.Strings[r])
			}
		}
	}
	return rows, nil
}

// OpenFile opens the Parquet file at path; close it with the returned
// function.
func OpenFile(path string) (*File, func() error, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	f, err := Open(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, fh.Close, nil
}

// ReadFile reads the Parquet file at path into rows of T (ReadRows).
func ReadFile[T any](path string) ([]T, error) {
	f, closeFile, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	rows, err := ReadRows[T](f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}
