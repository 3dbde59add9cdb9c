package xbf

// skip reads past one value of t with every check of value() (lengths,
// varints, booleans, UTF-8, enum indices, depth, the decoded-memory budget) but
// keeps nothing: SPEC 23.2 rule 4. Map keys are not checked for duplicates.
func (r *reader) skip(t *Type, depth int, counted bool) error {
	if r.minOf(t) == 0 {
		if !counted {
			return r.chargeZS(t.weight, r.pos)
		}
		return nil
	}
	off := r.pos
	switch t.Kind {
	case Bool:
		b, err := r.byte1()
		if err == nil && b > 1 {
			return r.fail(KindInvalidBool, off)
		}
		return err
	case U8, I8:
		_, err := r.byte1()
		return err
	case U16, U32, U64, I16, I32, I64, DateKind, Timestamp:
		if r.v1 {
			_, err := r.fixed(int(uintWidth(t.Kind) / 8))
			return err
		}
		_, err := r.uvarint(int(uintWidth(t.Kind)))
		return err
	case U128, I128:
		if r.v1 {
			_, err := r.fixed(16)
			return err
		}
		_, _, err := r.uvarint128()
		return err
	case FixedU16, FixedI16:
		_, err := r.fixed(2)
		return err
	case FixedU32, FixedI32, F32:
		_, err := r.fixed(4)
		return err
	case FixedU64, FixedI64, F64:
		_, err := r.fixed(8)
		return err
	case FixedU128, FixedI128:
		_, err := r.fixed(16)
		return err
	case U256, I256:
		_, err := r.fixed(32)
		return err
	case String:
		_, err := r.textBytes()
		return err
	case Bytes:
		n, err := r.count()
		if err != nil {
			return err
		}
		if n > r.remaining() {
			return r.fail(KindTruncated, off)
		}
		r.pos += int(n)
		return nil
	case Vec:
		n, err := r.count()
		if err != nil {
			return err
		}
		counted, err := r.checkCount(n, r.minOf(t.Elem), t.Elem.weight, off)
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			if err := r.skip(t.Elem, depth+1, counted); err != nil {
				return within(err, "["+utoa(i)+"]")
			}
		}
	case Array:
		if t.Len > r.remaining()/r.minOf(t.Elem) {
			return r.fail(KindTruncated, off)
		}
		for i := uint64(0); i < t.Len; i++ {
			if err := r.skip(t.Elem, depth+1, false); err != nil {
				return within(err, "["+utoa(i)+"]")
			}
		}
	case Struct:
		for _, f := range t.Fields {
			if err := r.skip(f.Type, depth+1, false); err != nil {
				return within(err, "."+f.Name)
			}
		}
	case Tuple:
		for i, e := range t.Elems {
			if err := r.skip(e, depth+1, false); err != nil {
				return within(err, "."+utoa(uint64(i)))
			}
		}
	case Option:
		b, err := r.byte1()
		if err != nil {
			return err
		}
		if b > 1 {
			return r.fail(KindInvalidBool, off)
		}
		if b == 1 {
			return r.skip(t.Elem, depth+1, false)
		}
	case Map:
		n, err := r.uvarint(w64)
		if err != nil {
			return err
		}
		counted, err := r.checkCount(n, satAdd(t.Key.min, t.Elem.min), entryWeight(t.Key, t.Elem), off)
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			if err := r.skip(t.Key, depth+1, counted); err != nil {
				return within(err, "["+utoa(i)+"].key")
			}
			if err := r.skip(t.Elem, depth+1, counted); err != nil {
				return within(err, "["+utoa(i)+"].value")
			}
		}
	case Enum:
		idx, err := r.uvarint(w64)
		if err != nil {
			return err
		}
		if idx >= uint64(len(t.Fields)) {
			return r.fail(KindUnknownVariant, off)
		}
		if err := r.skip(t.Fields[idx].Type, depth+1, false); err != nil {
			return within(err, "."+t.Fields[idx].Name)
		}
	case Any:
		if depth+1 > r.maxDepth {
			return r.fail(KindTooDeep, off)
		}
		own, err := r.typ(depth+1, false)
		if err != nil {
			return err
		}
		return r.skip(own, depth+1, false)
	default:
		return r.fail(KindUnsupported, off)
	}
	return nil
}

// textBytes reads a length-prefixed UTF-8 string without copying it.
func (r *reader) textBytes() ([]byte, error) {
	off := r.pos
	n, err := r.count()
	if err != nil {
		return nil, err
	}
	if n > r.remaining() {
		return nil, r.fail(KindTruncated, off)
	}
	b := r.data[r.pos : r.pos+int(n)]
	if !validUTF8(b) {
		return nil, r.fail(KindInvalidUTF8, off)
	}
	r.pos += int(n)
	return b, nil
}

// textArena reads a length-prefixed UTF-8 string as a Go string cut from
// the reader's chunk copies.
func (r *reader) textArena() (string, error) {
	off := r.pos
	var n uint64
	if r.pos < r.end && r.data[r.pos] < 0x80 && !r.v1 {
		n = uint64(r.data[r.pos])
		r.pos++
	} else {
		var err error
		if n, err = r.count(); err != nil {
			return "", err
		}
	}
	if n > r.remaining() {
		return "", r.fail(KindTruncated, off)
	}
	a, b := r.pos, r.pos+int(n)
	if !validUTF8(r.data[a:b]) {
		return "", r.fail(KindInvalidUTF8, off)
	}
	r.pos = b
	return r.str(a, b), nil
}

func utoa(x uint64) string {
	if x < 10 {
		return string(rune('0' + x))
	}
	var b [20]byte
	i := len(b)
	for x > 0 {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
	}
	return string(b[i:])
}
