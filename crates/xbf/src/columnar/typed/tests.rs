//! Unit tests of `typed`, kept apart so that the module reads in one sitting.

use super::*;

fn texts(d: Result<Data<'_>>) -> Result<Vec<String>> {
    match d? {
        Data::Text { text, spans, base } => {
            Ok(spans.iter().map(|&(s, e)| text[s - base..e - base].to_owned()).collect())
        }
        _ => panic!("not text"),
    }
}

#[test]
fn text_from_borrowed_and_owned_buffers() {
    let body = "xxé€ab".as_bytes();
    // é is bytes 2..4, € 4..7.
    let spans = vec![(2, 4), (4, 7), (7, 9)];
    let want = ["é", "€", "ab"];
    for b in [Cow::Borrowed(body), Cow::Owned(body.to_vec())] {
        assert_eq!(texts(text(b, spans.clone(), (2, 9), 0)).unwrap(), want);
    }
    // Spans in another order, or repeated (a dictionary's).
    for b in [Cow::Borrowed(body), Cow::Owned(body.to_vec())] {
        assert_eq!(texts(text(b, vec![(7, 9), (2, 4), (7, 9)], (2, 9), 0)).unwrap(), ["ab", "é", "ab"]);
    }
    // A span that ends inside a character: the values one by one, and
    // the one that is not UTF-8 fails.
    for b in [Cow::Borrowed(body), Cow::Owned(body.to_vec())] {
        let e = texts(text(b, vec![(2, 3), (3, 4)], (2, 4), 9)).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, Some(9)));
    }
    // Bytes of the region no span covers need not be UTF-8.
    let body = b"\xff\xfeok\xff";
    for b in [Cow::Borrowed(&body[..]), Cow::Owned(body.to_vec())] {
        assert_eq!(texts(text(b, vec![(2, 4), (3, 4)], (1, 5), 0)).unwrap(), ["ok", "k"]);
    }
    assert_eq!(texts(text(Cow::Owned(Vec::new()), Vec::new(), (0, 0), 0)).unwrap(), Vec::<String>::new());
}
