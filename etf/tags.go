package etf

// Version is the byte every external term starts with.
const Version = 131

// The tags of erl_ext_dist, "External Term Format" in the erts User's Guide.
const (
	tagNewFloat       = 70  // NEW_FLOAT_EXT: IEEE 754 binary64, big-endian
	tagAtomIndex2     = 73  // ATOM_INTERNAL_REF2: Index:16 into the writing VM's atom table
	tagAtomIndex3     = 75  // ATOM_INTERNAL_REF3: Index:24, the same
	tagBitBinary      = 77  // BIT_BINARY_EXT: Len:32, Bits:8, Data
	tagAtomCacheRef   = 82  // ATOM_CACHE_REF: distribution only
	tagDistHeader     = 68  // distribution header
	tagCompressed     = 80  // compressed term: Size:32, zlib stream
	tagNewPid         = 88  // NEW_PID_EXT: Node, ID:32, Serial:32, Creation:32
	tagNewPort        = 89  // NEW_PORT_EXT: Node, ID:32, Creation:32
	tagNewerReference = 90  // NEWER_REFERENCE_EXT: Len:16, Node, Creation:32, ID:32*Len
	tagSmallInteger   = 97  // SMALL_INTEGER_EXT: 0..255
	tagInteger        = 98  // INTEGER_EXT: signed 32 bits
	tagFloat          = 99  // FLOAT_EXT: 31 bytes of "%.20e" text
	tagAtom           = 100 // ATOM_EXT: Len:16, Latin-1
	tagReference      = 101 // REFERENCE_EXT: Node, ID:32, Creation:8
	tagPort           = 102 // PORT_EXT: Node, ID:32, Creation:8
	tagPid            = 103 // PID_EXT: Node, ID:32, Serial:32, Creation:8
	tagSmallTuple     = 104 // SMALL_TUPLE_EXT: Arity:8
	tagLargeTuple     = 105 // LARGE_TUPLE_EXT: Arity:32
	tagNil            = 106 // NIL_EXT
	tagString         = 107 // STRING_EXT: Len:16, bytes
	tagList           = 108 // LIST_EXT: Len:32, elements, tail
	tagBinary         = 109 // BINARY_EXT: Len:32, bytes
	tagSmallBig       = 110 // SMALL_BIG_EXT: N:8, Sign:8, N bytes little-endian
	tagLargeBig       = 111 // LARGE_BIG_EXT: N:32, Sign:8, N bytes
	tagNewFun         = 112 // NEW_FUN_EXT
	tagExport         = 113 // EXPORT_EXT
	tagNewReference   = 114 // NEW_REFERENCE_EXT: Len:16, Node, Creation:8, ID:32*Len
	tagSmallAtom      = 115 // SMALL_ATOM_EXT: Len:8, Latin-1
	tagMap            = 116 // MAP_EXT: Arity:32, key, value, ...
	tagFun            = 117 // FUN_EXT (before R8)
	tagAtomUTF8       = 118 // ATOM_UTF8_EXT: Len:16, UTF-8
	tagSmallAtomUTF8  = 119 // SMALL_ATOM_UTF8_EXT: Len:8, UTF-8
	tagV4Port         = 120 // V4_PORT_EXT: Node, ID:64, Creation:32
	tagLocal          = 121 // LOCAL_EXT: node-local, opaque
)

// maxAtomChars is erts's limit on an atom's length, in characters.
const maxAtomChars = 255
