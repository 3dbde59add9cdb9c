package xbf

import (
	"errors"
	"io"
)

// Encoder writes messages to an io.Writer, one per Encode.
type Encoder struct {
	w   io.Writer
	m   EncMode
	buf []byte
}

// NewEncoder returns an Encoder with the default options (XBF 2 rows).
func NewEncoder(w io.Writer) *Encoder { return defaultEnc.NewEncoder(w) }

// NewEncoder returns an Encoder with m's options.
func (m EncMode) NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w, m: m} }

// Encode writes v as one message (a Value is written with its own type).
func (e *Encoder) Encode(v any) error {
	var b []byte
	var err error
	if x, ok := v.(Value); ok {
		b, err = e.m.Encode(x)
	} else {
		b, err = e.m.appendMarshal(e.buf[:0], v)
	}
	if err != nil {
		return err
	}
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		return &Error{Kind: KindIO, Offset: -1, Detail: err.Error()}
	}
	return nil
}

// Decoder reads consecutive messages from an io.Reader. Messages delimit
// themselves; the Decoder reads only as much as arrives (SPEC 7.2: its
// buffer grows with the data, never on the strength of a length).
type Decoder struct {
	r   io.Reader
	m   DecMode
	buf []byte // unread bytes
	eof bool
	err error
}

// NewDecoder returns a Decoder with the default options.
func NewDecoder(r io.Reader) *Decoder { return defaultDec.NewDecoder(r) }

// NewDecoder returns a Decoder with m's options.
func (m DecMode) NewDecoder(r io.Reader) *Decoder { return &Decoder{r: r, m: m} }

// Decode reads the next message into v (a *Value gets the dynamic value).
// At the end of the input it returns io.EOF.
func (d *Decoder) Decode(v any) error {
	if d.err != nil {
		return d.err
	}
	for {
		if len(d.buf) == 0 && d.eof {
			return io.EOF
		}
		if len(d.buf) > 0 {
			used, err := d.try(v)
			var xe *Error
			// A message cut by the end of what has arrived so far: read on.
			if err != nil && !d.eof && errors.As(err, &xe) && xe.Kind == KindTruncated {
				if rerr := d.fill(); rerr != nil {
					d.err = rerr
					return rerr
				}
				continue
			}
			if err != nil {
				d.err = err
				return err
			}
			d.buf = d.buf[used:]
			return nil
		}
		if err := d.fill(); err != nil {
			d.err = err
			return err
		}
	}
}

func (d *Decoder) try(v any) (int, error) {
	if p, ok := v.(*Value); ok {
		r := d.m.newReader(d.buf)
		t, flags, err := d.m.header(r, false)
		if err != nil {
			return 0, err
		}
		if flags&flagColumnar != 0 {
			x, used, err := d.m.decodeColumns(r, t, false)
			if err != nil {
				return 0, err
			}
			*p = x
			return used, nil
		}
		x, err := r.value(t, 0, false)
		if err != nil {
			return 0, err
		}
		*p = x
		return r.pos, nil
	}
	return d.m.unmarshal(d.buf, v, false)
}

// fill reads more input, doubling what it asks for.
func (d *Decoder) fill() error {
	want := max(4096, len(d.buf))
	old := len(d.buf)
	if cap(d.buf)-old < want {
		nb := make([]byte, old, old+want)
		copy(nb, d.buf)
		d.buf = nb
	}
	n, err := d.r.Read(d.buf[old : old+want])
	d.buf = d.buf[:old+n]
	if err == io.EOF {
		d.eof = true
		return nil
	}
	if err != nil {
		return &Error{Kind: KindIO, Offset: -1, Detail: err.Error()}
	}
	return nil
}
