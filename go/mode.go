package xbf

import (
	"fmt"
	"sync"
)

// Layout chooses how an XBF 2 message lays out its value.
type Layout int

const (
	LayoutRows    Layout = iota // rows (section 13)
	LayoutColumns               // columns (section 22)
	LayoutAuto                  // columns when they come out smaller (22.5)
)

// DecOptions configure decoding. Zero values mean SPEC's defaults.
type DecOptions struct {
	// MaxDepth is the nesting limit (default 128).
	MaxDepth int
	// MaxDecodedBytes is the decoded-memory budget of one message, or of
	// one block of a record stream (SPEC 16.2, 22.3): every value the
	// input cannot bound costs DecodedValueBytes (48), and every byte that a
	// string dictionary, shared prefixes or zstd makes costs one. In rows
	// these are the zero-size values (unit, empty structs, vecs of them);
	// in columns, every value of every node. Passing it is `too-large`,
	// checked before anything is allocated for what a count announces.
	// 0 means the default, DefaultMaxDecodedBytes (2^30); any value from 1
	// to 2^64 − 1 is taken as it is. (A budget below 48 refuses every
	// zero-size value and every columnar message, as a budget of 0 does.)
	MaxDecodedBytes uint64
	// Registry resolves messages and streams by fingerprint (section 14);
	// nil is an empty registry.
	Registry *Registry
	// AllowMissingFields makes Unmarshal leave a Go struct field that the
	// data lacks as it is, as encoding/json does, for every field. By
	// default only optional fields may be missing (pointers, `omitempty`
	// and `xbf:",default"` fields); any other missing field fails with
	// type-mismatch at the struct, as the Rust reader fails (SPEC 23.2).
	AllowMissingFields bool
}

// DecMode is a validated, immutable set of decoding options, safe for
// concurrent use.
type DecMode struct {
	maxDepth     int
	maxBytes     uint64
	reg          *Registry
	allowMissing bool
}

// DecMode validates the options once.
func (o DecOptions) DecMode() (DecMode, error) {
	m := DecMode{maxDepth: o.MaxDepth, maxBytes: o.MaxDecodedBytes, reg: o.Registry, allowMissing: o.AllowMissingFields}
	if o.MaxDepth < 0 || o.MaxDepth > 1<<16 {
		return m, optionsErr(fmt.Sprintf("MaxDepth %d out of range 0..65536", o.MaxDepth))
	}
	if m.maxDepth == 0 {
		m.maxDepth = DefaultMaxDepth
	}
	if m.maxBytes == 0 {
		m.maxBytes = DefaultMaxDecodedBytes
	}
	return m, nil
}

var defaultDec, _ = DecOptions{}.DecMode()

// Registry maps fingerprints to types (SPEC 14.3). Safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	types map[[8]byte]*Type
}

// NewRegistry returns a registry holding the given types.
func NewRegistry(ts ...*Type) (*Registry, error) {
	r := &Registry{types: map[[8]byte]*Type{}}
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add registers t; a different type with the same fingerprint is refused.
func (r *Registry) Add(t *Type) error {
	fp := t.Fingerprint()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.types == nil {
		r.types = map[[8]byte]*Type{}
	}
	if old, ok := r.types[fp]; ok && !old.Equal(t) {
		return encErr(KindDuplicateKey, "", fmt.Sprintf("fingerprint %x belongs to %s", fp, old))
	}
	r.types[fp] = t
	return nil
}

// Lookup finds the type with the given fingerprint.
func (r *Registry) Lookup(fp [8]byte) (*Type, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.types[fp]
	return t, ok
}

func (m DecMode) newReader(data []byte) *reader {
	return &reader{data: data, end: len(data), maxDepth: m.maxDepth,
		zs: newZSLimit(m.maxBytes), allowMissing: m.allowMissing}
}

// Decode decodes a whole message (v1 or XBF 2, rows or columns) with the
// default options.
func Decode(data []byte) (Value, error) { return defaultDec.Decode(data) }

// Decode decodes one whole message; every byte must be consumed.
func (m DecMode) Decode(data []byte) (v Value, err error) {
	defer catchInternal(&err)
	r := m.newReader(data)
	t, flags, err := m.header(r, false)
	if err != nil {
		return Value{}, err
	}
	if flags&flagColumnar != 0 {
		return m.decodeColumnar(r, t)
	}
	v, err = r.value(t, 0, false)
	if err != nil {
		return Value{}, err
	}
	if r.pos != len(data) {
		return Value{}, errAt(KindTrailingBytes, r.pos, "")
	}
	return v, nil
}

const (
	flagByRef    = 0x01
	flagColumnar = 0x02
	flagStream   = 0x04
	flagChecksum = 0x08
)

// header reads the version byte, the flags and the type (inline or by
// fingerprint). For v1 there are no flags.
func (m DecMode) header(r *reader, stream bool) (*Type, byte, error) {
	if len(r.data) == 0 {
		return nil, 0, errAt(KindTruncated, 0, "")
	}
	first := r.data[0]
	switch {
	case first <= byte(Struct) && !stream:
		r.v1 = true
		t, err := r.typ(0, true)
		return t, 0, err
	case first == 0xc2:
	case first >= 0xc0 && first <= 0xcf:
		return nil, 0, errAt(KindUnsupported, 0, fmt.Sprintf("version byte %#x", first))
	default:
		return nil, 0, errAt(KindUnknownDiscriminant, 0, "")
	}
	if len(r.data) < 2 {
		return nil, 0, errAt(KindTruncated, 1, "")
	}
	flags := r.data[1]
	r.pos = 2
	switch {
	case flags&0xf0 != 0:
		return nil, 0, errAt(KindUnsupported, 1, "reserved flag bits")
	case flags&flagChecksum != 0 && flags&flagStream == 0:
		return nil, 0, errAt(KindUnsupported, 1, "checksums without a stream")
	case flags&flagColumnar != 0 && flags&flagStream != 0:
		return nil, 0, errAt(KindUnsupported, 1, "columns in a stream")
	case stream && flags&flagStream == 0:
		return nil, 0, errAt(KindUnsupported, 1, "a message given to the stream reader")
	case !stream && flags&flagStream != 0:
		return nil, 0, errAt(KindUnsupported, 1, "a stream given to the message decoder")
	}
	t, err := m.headerType(r, flags)
	return t, flags, err
}

// headerType reads the type that follows the flags at offset 2: inline
// metadata, or a fingerprint looked up in the registry.
func (m DecMode) headerType(r *reader, flags byte) (*Type, error) {
	if flags&flagByRef == 0 {
		return r.typ(0, true)
	}
	if len(r.data)-2 < 8 {
		return nil, errAt(KindTruncated, 2, "")
	}
	var fp [8]byte
	copy(fp[:], r.data[2:10])
	t, ok := m.reg.Lookup(fp)
	if !ok {
		return nil, errAt(KindUnknownSchema, 2, fmt.Sprintf("fingerprint %x", fp))
	}
	if t.depth > m.maxDepth {
		return nil, errAt(KindTooDeep, 2, "")
	}
	r.pos = 10
	if t.Kind == Struct || t.Kind == Enum {
		r.path = append(r.path, seg{kind: 'r', name: t.Name})
	}
	return t, nil
}

// catchInternal turns a panic (a bug: the decoder checks before it indexes)
// into an `internal` error, so that hostile input can never crash a caller.
func catchInternal(err *error) {
	if p := recover(); p != nil {
		*err = &Error{Kind: KindInternal, Offset: -1, Detail: fmt.Sprint(p)}
	}
}
