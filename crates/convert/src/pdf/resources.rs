//! The resources in force where text is shown: a page's, or a form's over
//! those of what draws it.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::font::FontText;

/// What text showing needs from the resources in force: fonts' encodings and
/// the XObjects a `Do` may draw.
pub(super) struct Resources<'d, 'p> {
    pub(super) encodings: Rc<BTreeMap<Vec<u8>, Rc<FontText<'d>>>>,
    pub(super) xobjects: Rc<BTreeMap<Vec<u8>, lopdf::ObjectId>>,
    /// The resources of what draws this form: names not found here are looked up there.
    pub(super) parent: Option<&'p Resources<'d, 'p>>,
}

impl<'d> Resources<'d, '_> {
    pub(super) fn encoding(&self, font: &[u8]) -> Option<&FontText<'d>> {
        self.encodings
            .get(font)
            .map(|text| &**text)
            .or_else(|| self.parent?.encoding(font))
    }

    pub(super) fn xobject(&self, name: &[u8]) -> Option<lopdf::ObjectId> {
        self.xobjects
            .get(name)
            .copied()
            .or_else(|| self.parent?.xobject(name))
    }
}
