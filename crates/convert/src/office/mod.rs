//! Office Open XML packages: Word documents ([`word`]), Excel workbooks
//! ([`excel`]) and PowerPoint presentations ([`slides`]), each read out of its
//! zip through [`Archive`](crate::archive::Archive) with the XML
//! streamed once. What they share (a part, a relationship id, a body of
//! paragraphs and tables) is in [`parts`], which uses none of them.

mod excel;
mod parts;
mod slides;
mod word;

pub(crate) use excel::excel;
pub(crate) use parts::KIND;
pub(crate) use slides::slides;
pub(crate) use word::{main_word_part, word};
