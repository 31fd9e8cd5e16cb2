//! Results Ruby reads by name: a Hash of Symbol keys. A leaf, so that every
//! binding file may build one, `convert.rs` and the classes it wraps alike.

use magnus::{value::ReprValue, Error, IntoValue, RHash, Ruby, Value};

/// The most pairs a result holds without a second allocation for its keys.
const INLINE_PAIRS: usize = 8;

/// A Hash of `pairs` under Symbol keys: a result Ruby reads by name, not position.
/// Most native calls answer with one, so the keys are static Symbols (interned,
/// never a String made to become one) and the pairs go in at once.
pub fn named(ruby: &Ruby, pairs: &[(&str, Value)]) -> Result<RHash, Error> {
    let hash = ruby.hash_new();
    if pairs.len() <= INLINE_PAIRS {
        let mut flat = [ruby.qnil().as_value(); INLINE_PAIRS * 2];
        fill(ruby, pairs, &mut flat);
        hash.bulk_insert(&flat[..pairs.len() * 2])?;
    } else {
        let mut flat = vec![ruby.qnil().as_value(); pairs.len() * 2];
        fill(ruby, pairs, &mut flat);
        hash.bulk_insert(&flat)?;
    }
    Ok(hash)
}

fn fill(ruby: &Ruby, pairs: &[(&str, Value)], flat: &mut [Value]) {
    for (at, (key, value)) in pairs.iter().enumerate() {
        flat[2 * at] = ruby.sym_new(*key).into_value_with(ruby);
        flat[2 * at + 1] = *value;
    }
}
