// Package xbf reads and writes XBF, the Xtensible Binary Format
// (SPEC.md at the repository root): XBF v1, XBF 2 in rows and in columns,
// schemas by fingerprint and record streams. It is pure Go; zstd columns
// use github.com/klauspost/compress.
//
// Typed data, in the style of encoding/json:
//
//	b, err := xbf.Marshal(records)   // XBF 2 rows; the type comes from the Go type
//	err = xbf.Unmarshal(b, &records) // fields matched by name (SPEC 23.2)
//
// Struct fields are found as encoding/json finds them (the fields of
// embedded structs promoted, with json's conflict rules) and written
// under their name or their `xbf:"name"` tag;
// `xbf:"-"` leaves a field out and `xbf:",omitempty"` makes it an option,
// absent when empty. Pointers are options, slices vecs ([]byte is bytes),
// arrays arrays, maps maps (entries sorted by their keys' bytes, so that a
// map always gives the same bytes), time.Time a timestamp (microseconds),
// Date a date, big.Int an i128 (`xbf:",u128"`, `",i256"` or `",u256"` for
// the others), interfaces and Value `any`, and a struct embedding OneOf
// an enum (one pointer field per variant, exactly one set; see OneOf).
// Types implementing Marshaler or encoding.BinaryMarshaler write
// themselves. Reading takes fields in any
// order, skips the data's extra fields (checking them as the decoder does),
// fails on a Go field the data lacks with type-mismatch at the struct, as
// the Rust reader does (SPEC 23.2 rule 3), unless the field is optional: a
// pointer, `omitempty`, or tagged `xbf:",default"` (left as it is);
// DecOptions.AllowMissingFields leaves every missing field as it is, as
// encoding/json does. It reads
// any integer width into any Go integer that holds the value (else
// type-mismatch at the value's offset), an option into a plain field
// (absent leaves the zero value) and a plain value into a pointer.
//
// Data whose type is not known in advance decodes into a Value, which
// carries its Type: Decode reads any message, v1 or XBF 2, rows or columns.
//
// XBF files (SPEC 24) are read from the end with OpenFile (any block
// directly, only the columns asked for, blocks skipped by a filter on their
// statistics: ReadOptions) or forward with NewFileStreamReader, and
// written with NewFileWriter (or appended to with AppendFile).
//
// Options are validated once into a mode, as fxamacker/cbor does:
//
//	enc, err := xbf.EncOptions{Layout: xbf.LayoutAuto, ZstdLevel: 3}.EncMode()
//	dec, err := xbf.DecOptions{MaxDepth: 64, Registry: reg}.DecMode()
//
// Every decoding error is an *Error with SPEC's kind name, byte offset and
// path (`at byte 44, in Point.last: truncated`); use errors.As. Decoders
// treat input as hostile: lengths and counts are checked against the input
// before anything is allocated, depth and the decoded-memory budget
// (DecOptions.MaxDecodedBytes) are limited as SPEC 7, 16 and 22.3 say
// (limits.go), and a
// last-resort recover turns a bug into an `internal` error instead of a
// crash.
package xbf
