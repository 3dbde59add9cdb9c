export { XbfError, type ErrorKind } from "./errors.js";
export {
  type XbfType, type Member, type PrimitiveKind, SchemaRegistry, fingerprint, metadataBytes, typeFromJson, typeToJson,
  typeToString,
} from "./metadata.js";
export { XbfEnum, XbfAny, XbfSome, XbfDate, XbfTimestamp, type ValueOptions, inferType } from "./values.js";
export { decode, decodeWithType, encode, Decoder, Encoder, type DecodeOptions, type EncodeOptions, type Decoded } from "./codec.js";
export { StreamReader, StreamWriter, readStream, type StreamReadOptions, type StreamWriteOptions } from "./stream.js";
export { StreamChunkReader } from "./stream_chunks.js";
export { crc32c, sha256 } from "./checksums.js";
export { XbfNaN } from "./nan.js";
export type { LimitOptions } from "./decode_rows.js";
export {
  FileReader, FileStreamReader, FileBlockError, readFileForward, encodingName,
  type FileReadOptions, type FileQuery, type FileBlock, type DamagedBlock, type ChunkSource, type BlockColumn,
} from "./file.js";
export { parsePredicate, type BlockInfo, type ColumnInfo, type ColumnStatistics, type Predicate, type Op } from "./file_footer.js";
export { FileWriter, type FileWriteOptions } from "./file_writer.js";
