use super::*;
use crate::index::vector::Vector;

/// Vectors of three made-up meanings, so a test knows which passage is nearest.
fn meaning(axis: usize) -> Vec<f32> {
    // Small values that differ by dimension, so that no two cosines tie.
    let mut vector: Vec<f32> = (0..8).map(|i| 0.01 * (i as f32 + 1.0)).collect();
    vector[axis] = 1.0;
    vector
}

fn embedded(index: &mut Index, path: &str, text: &str, axes: &[usize]) -> usize {
    let put = index.put(path, "v1", text).unwrap();
    let vectors: Vec<(usize, Vec<f32>)> = put
        .unembedded
        .iter()
        .map(|(at, _)| (*at, meaning(axes[*at])))
        .collect();
    index.set_vectors(path, &vectors).unwrap();
    put.unembedded.len()
}

fn manual() -> Index {
    let mut index = Index::new();
    assert!(index.embed_with(Some("test-model")));
    embedded(
        &mut index,
        "manual.md",
        "# Timeouts\n\nstatement_timeout: abort any statement that takes more than the specified time.\n\n# Locks\n\nlock_timeout: wait for a lock at most this long.\n",
        &[0, 1],
    );
    embedded(
        &mut index,
        "lunch.md",
        "Lunch is served at noon in the hall.\n",
        &[2],
    );
    index
}

#[test]
fn a_question_in_other_words_finds_its_passage_by_meaning() {
    let index = manual();
    // No word of the question is in the passage that answers it.
    let question = "make the server give up on a slow query";
    assert!(index.search_within(question, 10, None).unwrap().is_empty());
    let hits = index
        .search_hybrid(question, Some(&meaning(0)), 10, None)
        .unwrap();
    assert_eq!(hits[0].path, "manual.md");
    assert_eq!((hits[0].first_line, hits[0].last_line), (1, 3));
}

#[test]
fn the_words_and_the_meaning_agreeing_rank_first_and_the_folder_narrows_both() {
    let index = manual();
    let hits = index
        .search_hybrid("lunch at noon", Some(&meaning(2)), 10, None)
        .unwrap();
    assert_eq!(hits[0].path, "lunch.md");
    let within = index
        .search_hybrid("lunch at noon", Some(&meaning(2)), 10, Some("manual.md"))
        .unwrap();
    assert!(
        within.iter().all(|hit| hit.path == "manual.md"),
        "{within:?}"
    );
    // Without a vector for the question, the words' ranking alone.
    assert_eq!(
        index.search_hybrid("lock", None, 10, None).unwrap(),
        index.search_within("lock", 10, None).unwrap()
    );
}

#[test]
fn an_unchanged_passage_keeps_its_vector_and_a_changed_one_is_embedded_again() {
    let mut index = manual();
    let put = index
        .put(
            "manual.md",
            "v2",
            "# Timeouts\n\nstatement_timeout: abort any statement that takes more than the specified time.\n\n# Locks\n\nlock_timeout: wait at most this long for any lock.\n",
        )
        .unwrap();
    let texts: Vec<&str> = put.unembedded.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(put.unembedded.len(), 1, "{texts:?}");
    assert_eq!(put.unembedded[0].0, 1);
    assert!(texts[0].starts_with("# Locks\n"), "{texts:?}");
    // The passage left without its vector is found by its words alone until given one.
    assert_eq!(index.embedded(), 2);
    let hits = index
        .search_hybrid("wait for any lock", Some(&meaning(0)), 10, None)
        .unwrap();
    assert_eq!((hits[0].first_line, hits[0].score), (5, 1.0));
}

#[test]
fn a_new_model_drops_every_vector_and_makes_every_file_stale() {
    let mut index = manual();
    assert!(!index.embed_with(Some("test-model")));
    assert!(index.embed_with(Some("another-model")));
    assert_eq!(index.embedded(), 0);
    assert_eq!(index.version("manual.md"), Some(""));
    assert!(index.set_version("manual.md", "v9"));
    assert_eq!(index.version("manual.md"), Some("v9"));
    assert!(!index.set_version("missing.md", "v1"));
    let put = index
        .put("lunch.md", "v2", "Lunch is served at noon in the hall.\n")
        .unwrap();
    assert_eq!(put.unembedded.len(), 1, "embedded again with the new model");
    assert!(index.embed_with(None));
    let put = index
        .put("lunch.md", "v3", "Lunch is served at noon in the hall.\n")
        .unwrap();
    assert!(put.unembedded.is_empty(), "no model, nothing to embed");
}

#[test]
fn vectors_that_do_not_fit_are_refused_and_change_nothing() {
    let mut index = manual();
    let wrong = index.set_vectors("manual.md", &[(0, vec![1.0; 3])]);
    assert!(wrong.unwrap_err().to_string().contains("3 dimensions"));
    assert!(index.set_vectors("manual.md", &[(7, meaning(0))]).is_err());
    assert!(index.set_vectors("missing.md", &[(0, meaning(0))]).is_err());
    assert!(index
        .search_hybrid("lunch", Some(&[1.0; 3]), 10, None)
        .is_err());
    assert!(index
        .search_hybrid("lunch", Some(&[0.0; 8]), 10, None)
        .is_err());
    assert_eq!(index.embedded(), 3);
    let mut none = Index::new();
    none.put("a.md", "v1", "text").unwrap();
    assert!(none.set_vectors("a.md", &[(0, meaning(0))]).is_err());
    assert!(none
        .set_vectors("a.md", &[(0, vec![1.0; MAX_DIMENSIONS + 1])])
        .is_err());
}

#[test]
fn a_vector_in_eight_bits_keeps_its_cosines() {
    let a: Vec<f32> = (0..384)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0)
        .collect();
    let b: Vec<f32> = (0..384)
        .map(|i| ((i * 53 % 97) as f32 - 48.0) / 11.0)
        .collect();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>() / (norm(&a) * norm(&b));
    let unit_b: Vec<f32> = b.iter().map(|x| x / norm(&b)).collect();
    let quantized = Vector::quantize(&a).unwrap().cosine(&unit_b);
    assert!(
        (exact - quantized).abs() < 0.01,
        "{exact} against {quantized}"
    );
    assert!(Vector::quantize(&[0.0; 4]).is_none());
    assert!(Vector::quantize(&[f32::NAN, 1.0]).is_none());
}

#[test]
fn vectors_are_saved_and_read_back() {
    let index = manual();
    let back = Index::load(&index.save()).unwrap();
    assert_eq!(back.embedding_model(), Some("test-model"));
    assert_eq!(back.embedded(), 3);
    for (question, axis) in [
        ("abort a statement", 0),
        ("give up on a slow query", 0),
        ("noon", 2),
    ] {
        assert_eq!(
            back.search_hybrid(question, Some(&meaning(axis)), 10, None)
                .unwrap(),
            index
                .search_hybrid(question, Some(&meaning(axis)), 10, None)
                .unwrap()
        );
    }
    assert_eq!(back.save(), index.save());
    let saved = index.save();
    for end in 0..saved.len() {
        assert!(Index::load(&saved[..end]).is_err(), "cut at {end}");
    }
    for at in 0..saved.len() {
        let mut changed = saved.clone();
        changed[at] ^= 0xff;
        let _ = Index::load(&changed);
    }
}

#[test]
fn vectors_past_the_bytes_an_index_holds_are_left_out_and_counted() {
    let mut index = Index::new();
    index.embed_with(Some("wide-model"));
    let text: String = (0..20)
        .map(|n| format!("# Part {n}\n\nThe walrus number {n}.\n\n"))
        .collect();
    let put = index.put("many.md", "v1", &text).unwrap();
    let wide = |n: usize| {
        let mut vector = vec![0.01f32; MAX_DIMENSIONS];
        vector[n] = 1.0;
        vector
    };
    let vectors: Vec<(usize, Vec<f32>)> = put
        .unembedded
        .iter()
        .map(|(at, _)| (*at, wide(*at)))
        .collect();
    let room = crate::MAX_VECTOR_BYTES / MAX_DIMENSIONS;
    assert!(
        room < vectors.len() * 1000,
        "the bound is reached by this test's index"
    );
    let mut left_out = 0;
    // The same file put under as many paths as the bound needs.
    for copy in 0..=(room / vectors.len()) {
        let path = format!("copy{copy}.md");
        let put = index.put(&path, "v1", &text).unwrap();
        let vectors: Vec<(usize, Vec<f32>)> = put
            .unembedded
            .iter()
            .map(|(at, _)| (*at, wide(*at)))
            .collect();
        left_out += index.set_vectors(&path, &vectors).unwrap();
    }
    assert_eq!(index.embedded(), room);
    assert!(left_out > 0);
    index.remove("copy0.md");
    assert_eq!(index.embedded(), room - vectors.len());
    let back = Index::load(&index.save()).unwrap();
    assert_eq!(back.embedded(), index.embedded());
}
