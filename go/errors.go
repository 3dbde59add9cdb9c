package xbf

import (
	"strconv"
	"strings"
)

// Error kinds, with SPEC.md's stable names (sections 8.1, 17.1, 22).
const (
	KindTruncated           = "truncated"
	KindTrailingBytes       = "trailing-bytes"
	KindUnknownDiscriminant = "unknown-discriminant"
	KindInvalidUTF8         = "invalid-utf8"
	KindInvalidBool         = "invalid-bool"
	KindDuplicateField      = "duplicate-field"
	KindTooDeep             = "too-deep"
	KindTooLarge            = "too-large"
	KindInvalidVarint       = "invalid-varint"
	KindUnknownVariant      = "unknown-variant"
	KindDuplicateKey        = "duplicate-key"
	KindUnknownSchema       = "unknown-schema"
	KindBadChecksum         = "bad-checksum"
	KindUnsupported         = "unsupported"
	KindInvalidColumn       = "invalid-column"
	KindTypeMismatch        = "type-mismatch"
	KindIO                  = "io"
	// KindInvalidOptions: DecOptions or EncOptions out of their documented
	// ranges, refused by DecMode or EncMode before anything is read or written.
	KindInvalidOptions = "invalid-options"
	// KindInternal marks a bug in this package caught by the decoder's
	// last-resort recover; it never comes from well-behaved code.
	KindInternal = "internal"
)

// Error is every error this package returns. Offset is the byte offset the
// SPEC names for the kind (-1 when there is none, as for encoder errors);
// Path is SPEC's path form (`Point.last`, `[3]`, `#2.price`).
type Error struct {
	Kind   string
	Offset int64
	Path   string
	Detail string
}

// Error renders SPEC 8.4's display form: `at byte 44, in Point.last: truncated`.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Offset >= 0 {
		b.WriteString("at byte ")
		b.WriteString(strconv.FormatInt(e.Offset, 10))
		if e.Path != "" {
			b.WriteString(", in ")
			b.WriteString(e.Path)
		}
		b.WriteString(": ")
	} else if e.Path != "" {
		b.WriteString("in ")
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Kind)
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func errAt(kind string, off int, detail string) *Error {
	return &Error{Kind: kind, Offset: int64(off), Detail: detail}
}

// optionsErr is DecMode's and EncMode's refusal of options out of range
// (SPEC 8.1's invalid-options, as the Rust options builders raise it).
func optionsErr(detail string) *Error {
	return &Error{Kind: KindInvalidOptions, Offset: -1, Detail: detail}
}

// encErr is an error without a byte offset (encoders, constructors).
func encErr(kind, path, detail string) *Error {
	return &Error{Kind: kind, Offset: -1, Path: path, Detail: detail}
}
