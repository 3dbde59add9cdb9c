//! Schemas by reference: a message may carry an 8-byte fingerprint of its
//! metadata instead of the metadata, for readers that already hold it.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use crate::metadata::Metadata;

/// The fingerprint of a type: the first 8 bytes of the SHA-256 of its
/// XBF 2 metadata bytes.
///
/// ```
/// use xbf::{Metadata, PrimitiveType};
///
/// let fp = xbf::fingerprint(&PrimitiveType::U16.into());
/// assert_eq!(fp.len(), 8);
/// assert_ne!(fp, xbf::fingerprint(&PrimitiveType::U32.into()));
/// ```
pub fn fingerprint(ty: &Metadata) -> [u8; 8] {
    let digest = Sha256::digest(ty.bytes_v2());
    let mut fp = [0u8; 8];
    fp.copy_from_slice(&digest[..8]);
    fp
}

/// The types a reader knows by fingerprint.
///
/// ```
/// use xbf::{DecodeOptions, EncodeOptions, ErrorKind, SchemaRegistry, Value};
///
/// let msg = EncodeOptions::v2().schema_by_reference(true).encode_message(&Value::U16(7))?;
/// assert_eq!(msg.len(), 2 + 8 + 1);
/// assert_eq!(xbf::decode_message(&msg).unwrap_err().kind(), ErrorKind::UnknownSchema);
///
/// let mut schemas = SchemaRegistry::new();
/// schemas.insert(Value::U16(0).metadata());
/// let opts = DecodeOptions::default().schemas(schemas);
/// assert_eq!(opts.decode_message(&msg)?, Value::U16(7));
/// # Ok::<(), xbf::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SchemaRegistry {
    by_fingerprint: HashMap<[u8; 8], Metadata>,
}

impl SchemaRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        SchemaRegistry::default()
    }

    /// Adds a type; returns its fingerprint.
    pub fn insert(&mut self, ty: Metadata) -> [u8; 8] {
        let fp = fingerprint(&ty);
        self.by_fingerprint.insert(fp, ty);
        fp
    }

    /// The type with this fingerprint.
    pub fn get(&self, fp: &[u8; 8]) -> Option<&Metadata> {
        self.by_fingerprint.get(fp)
    }

    /// The number of types held.
    pub fn len(&self) -> usize {
        self.by_fingerprint.len()
    }

    /// Whether no type is held.
    pub fn is_empty(&self) -> bool {
        self.by_fingerprint.is_empty()
    }
}
