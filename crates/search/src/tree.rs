//! Search over a folder store's files with the converters a registry names, in the
//! core from end to end: each file is opened, typed and, when a built-in converter
//! reads its type, searched in its converted text, kept in [`file_store_documents::cache`]
//! so a second search converts nothing. Files whose type a caller's own converter
//! reads are searched in the text the caller gives.

use std::collections::HashMap;
use std::sync::Arc;

use super::sink::unreadable;
use super::{search_fed, SearchInput, SearchOptions, SearchOutput, Source};
use file_store_base::content_type::holds_text;
use file_store_base::error::Result;
use file_store_documents::{cache, cut_reason, Kind, Refusal};
use file_store_folder::{Found, Root};

/// One converter a registry names for a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A built-in converter, run in the core.
    Native(Kind),
    /// A converter of the caller's, which the core cannot run.
    Caller,
}

/// What reads a file of some type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// No converter: the file is searched as it is when its type may hold text.
    AsIs,
    /// The built-in converters, tried in order.
    Native(Vec<Kind>),
    /// A converter of the caller's is among them: the caller gives the text.
    Caller,
}

/// The converters by MIME type (`"application/pdf"`), family (`"image/*"`) or
/// `"*/*"`, each a list tried in order, as the registry of the Ruby layer holds them.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// By exact type.
    exact: HashMap<String, Vec<Step>>,
    /// By family, keyed by the part before the `/` (`"image"` for `"image/*"`).
    families: HashMap<String, Vec<Step>>,
    /// For every type (`"*/*"`).
    any: Vec<Step>,
}

impl Plan {
    /// A plan from `(key, steps)` pairs.
    pub fn new(entries: impl IntoIterator<Item = (String, Vec<Step>)>) -> Plan {
        let mut plan = Plan::default();
        for (key, steps) in entries {
            match key.strip_suffix("/*") {
                Some("*") => plan.any = steps,
                Some(family) => {
                    plan.families.insert(family.to_string(), steps);
                }
                None => {
                    plan.exact.insert(key, steps);
                }
            }
        }
        plan
    }

    /// What reads a file of `content_type`: the converters of each of
    /// [`converter_keys`] in turn. Asked for every file a search reads, it
    /// allocates nothing when no converter reads the type.
    pub fn reading(&self, content_type: &str) -> Reading {
        let family = content_type.split('/').next().unwrap_or("");
        let lists = [
            self.exact.get(content_type).map(Vec::as_slice),
            self.families.get(family).map(Vec::as_slice),
            Some(self.any.as_slice()),
        ];
        let mut steps = lists.into_iter().flatten().flatten().peekable();
        if steps.peek().is_none() {
            return Reading::AsIs;
        }
        let kinds: Option<Vec<Kind>> = steps
            .map(|step| match step {
                Step::Native(kind) => Some(*kind),
                Step::Caller => None,
            })
            .collect();
        kinds.map_or(Reading::Caller, Reading::Native)
    }
}

/// The keys of a registry whose converters read a file of `content_type`, in the
/// order they are tried: the exact type, then its family (`image/*`), then `*/*`.
/// The one lookup order: the Ruby layer asks it too (`Native.converter_keys`).
pub fn converter_keys(content_type: &str) -> Vec<String> {
    let family = format!("{}/*", content_type.split('/').next().unwrap_or(""));
    let mut keys = vec![content_type.to_string(), family, "*/*".to_string()];
    keys.dedup();
    keys
}

/// The text a caller gives for a file, or why it has none.
pub type Given = std::result::Result<Arc<[u8]>, String>;

/// Why a file no converter reads and whose type holds no text is skipped.
pub const NO_CONVERTER: &str = "has no text converter";

/// The paths inside `prefix` (or all) whose type a caller's converter reads,
/// sorted: the files a caller converts before [`search_tree`].
pub fn caller_paths(root: &Root, prefix: Option<&str>, plan: &Plan) -> Result<Vec<String>> {
    let mut paths = Vec::new();
    let mut readings: HashMap<String, bool> = HashMap::new();
    for entry in root.list(prefix)? {
        let caller = *readings
            .entry(entry.content_type.clone())
            .or_insert_with(|| plan.reading(&entry.content_type) == Reading::Caller);
        if caller {
            paths.push(entry.path);
        }
    }
    Ok(paths)
}

/// Searches every file inside the folder `prefix` (or all) of `root`, in path
/// order, each read as `plan` says: as it is, in its built-in converters' text, or
/// in the text `given` holds for it. Returns the search and how many files there
/// were. Skipped files are in the output with why. The files are searched as
/// the walk finds them, in path order, so no time goes to listing them first.
pub fn search_tree(
    root: &Arc<Root>,
    prefix: Option<&str>,
    opts: &SearchOptions,
    plan: &Arc<Plan>,
    mut given: HashMap<String, Given>,
) -> Result<(SearchOutput, usize)> {
    let mut count = 0;
    let kept = root.types_kept();
    let out = search_fed(opts, |feed| {
        root.each_file(prefix, |found| {
            count += 1;
            let path = found.path().to_string();
            let source = match given.remove(&path) {
                Some(Ok(text)) => Source::Bytes(text.into()),
                Some(Err(why)) => Source::Lazy(Box::new(move || Err(why))),
                None => {
                    let plan = Arc::clone(plan);
                    Source::Lazy(Box::new(move || prepare(&found, &plan, kept)))
                }
            };
            feed(SearchInput { path, source })
        })
    })?;
    Ok((out, count))
}

/// Opens the file `found` from its folder and gives what to search in it, on the
/// worker thread. `kept`: whether the folder's files may keep a content type
/// (`Root::types_kept`).
fn prepare(found: &Found, plan: &Plan, kept: bool) -> std::result::Result<Source, String> {
    let (file, content_type, size) = found.open_typed(kept).map_err(unreadable)?;
    let path = found.path();
    match plan.reading(&content_type) {
        Reading::AsIs if holds_text(&content_type) == Some(false) => Err(NO_CONVERTER.into()),
        Reading::AsIs => Ok(Source::Open(file, size)),
        // A caller's converter reads it, yet the caller gave nothing: the file came
        // after the caller listed the folder.
        Reading::Caller => Err("was added during the search".into()),
        Reading::Native(chain) => {
            let conversion = cache::converted(&file, path, &chain).map_err(unreadable)?;
            match &conversion.text {
                Ok(text) => Ok(match cut_reason(text) {
                    Some(why) => Source::Cut(Arc::clone(text).into(), why.to_string()),
                    None => Source::Bytes(Arc::clone(text).into()),
                }),
                // As the Ruby layer does: a type that holds text is read as it is
                // when its converters give nothing (a page of HTML with no text).
                Err(_) if holds_text(&content_type) != Some(false) => {
                    let (file, size) = found.open_sized().map_err(unreadable)?;
                    Ok(Source::Open(file, size))
                }
                Err(Refusal::Stopped(why)) => Err(format!("could not be read: {why}")),
                Err(refusal) => Err(format!("gave no text ({refusal})")),
            }
        }
    }
}

#[cfg(test)]
mod tests;
