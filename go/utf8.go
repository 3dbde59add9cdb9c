package xbf

import "unicode/utf8"

// validUTF8 checks ASCII eight bytes at a time before the full check:
// most strings in records are ASCII.
func validUTF8(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if (uint64(b[i])|uint64(b[i+1])|uint64(b[i+2])|uint64(b[i+3])|uint64(b[i+4])|uint64(b[i+5])|uint64(b[i+6])|uint64(b[i+7]))&0x80 != 0 {
			return utf8.Valid(b[i:])
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= 0x80 {
			return utf8.Valid(b[i:])
		}
	}
	return true
}

// validUTF8String is validUTF8 for a string.
func validUTF8String(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if (uint64(s[i])|uint64(s[i+1])|uint64(s[i+2])|uint64(s[i+3])|uint64(s[i+4])|uint64(s[i+5])|uint64(s[i+6])|uint64(s[i+7]))&0x80 != 0 {
			return utf8.ValidString(s[i:])
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return utf8.ValidString(s[i:])
		}
	}
	return true
}
