package xbf

// For the external tests (package xbf_test), which may import vectorform.
var (
	GenType  = genType
	GenValue = genValue
)
