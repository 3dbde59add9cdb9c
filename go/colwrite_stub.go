package xbf

func appendColumns(head []byte, v Value, level int) ([]byte, error) {
	return nil, encErr(KindUnsupported, "", "columns: not yet")
}
func (m EncMode) encodeAuto(head []byte, v Value) ([]byte, error) {
	e := encoder{out: head}
	err := e.value(v, v.Type)
	return e.out, err
}
