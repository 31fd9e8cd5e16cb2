//! Results Ruby reads by name: a Hash of Symbol keys. A leaf, so that every
//! binding file may build one, `convert.rs` and the classes it wraps alike.

use magnus::{Error, RHash, Ruby, Value};

/// A Hash of `pairs` under Symbol keys: a result Ruby reads by name, not position.
pub fn named(ruby: &Ruby, pairs: &[(&str, Value)]) -> Result<RHash, Error> {
    let hash = ruby.hash_new();
    for (key, value) in pairs {
        hash.aset(ruby.to_symbol(key), *value)?;
    }
    Ok(hash)
}
