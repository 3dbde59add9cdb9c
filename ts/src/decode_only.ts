// The decode-only entry point (`xbf/decode`): what a page that only reads XBF needs. Bundlers keep the
// decoders and leave out the writers, inference and streams' writer (see the README for the sizes).
export { XbfError, type ErrorKind } from "./errors.js";
export { type XbfType, type Member, type PrimitiveKind, SchemaRegistry } from "./metadata.js";
export { XbfEnum, XbfAny, XbfSome, XbfDate, XbfTimestamp, type ValueOptions } from "./values.js";
export { decode, decodeWithType, Decoder, type DecodeOptions, type Decoded } from "./codec.js";
export { StreamReader, readStream, type StreamReadOptions } from "./stream.js";
export { StreamChunkReader } from "./stream_chunks.js";
export type { LimitOptions } from "./decode_rows.js";
export {
  FileReader, FileStreamReader, FileBlockError, readFileForward, encodingName,
  type FileReadOptions, type FileQuery, type FileBlock, type DamagedBlock, type ChunkSource, type BlockColumn,
} from "./file.js";
export { parsePredicate, type BlockInfo, type ColumnInfo, type ColumnStatistics, type Predicate, type Op } from "./file_footer.js";
