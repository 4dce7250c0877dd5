//! A survey's answers as CSV (the `csv` crate does the quoting: commas,
//! quotes and line breaks inside cells). One row per response: the time
//! (UTC, ISO 8601), the account id (not the e-mail), then one column per
//! question: chosen option labels joined by "; ", the rating, or the text.
//! Cells that a spreadsheet would run as a formula (starting with `=`, `+`,
//! `-`, `@`, tab or carriage return) are prefixed with `'` (OWASP's CSV
//! injection advice). The file starts with a UTF-8 byte order mark: without
//! it Excel reads a CSV in the system's legacy code page and shows accented
//! or CJK answers as mojibake; other readers skip it.

use protocol::survey::{AnswerValue, QuestionKind, SurveyDef};

use super::ResponseRow;

/// The UTF-8 byte order mark the export starts with.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

pub struct CsvExport {
    def: SurveyDef,
    writer: csv::Writer<Vec<u8>>,
}

/// A text cell made safe to open in a spreadsheet.
pub fn neutralise(cell: &str) -> String {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}"),
        _ => cell.to_owned(),
    }
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn iso_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl CsvExport {
    pub fn new(def: &SurveyDef) -> Result<CsvExport, csv::Error> {
        let mut writer = csv::Writer::from_writer(BOM.to_vec());
        let mut header = vec!["submitted_at".to_owned(), "account".to_owned()];
        header.extend(def.questions.iter().map(|q| neutralise(&q.title)));
        writer.write_record(&header)?;
        Ok(CsvExport {
            def: def.clone(),
            writer,
        })
    }

    pub fn push(&mut self, r: &ResponseRow) -> Result<(), csv::Error> {
        let mut record = vec![iso_utc(r.at), neutralise(&r.account)];
        for q in &self.def.questions {
            let value = r.answers.iter().find(|(id, _)| id == &q.id).map(|(_, v)| v);
            let cell = match (q.kind, value) {
                (
                    QuestionKind::Single | QuestionKind::Multiple,
                    Some(AnswerValue::Choices(ids)),
                ) => q
                    .options
                    .iter()
                    .filter(|o| ids.contains(&o.id))
                    .map(|o| o.label.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
                (QuestionKind::Rating, Some(AnswerValue::Rating(n))) => n.to_string(),
                (QuestionKind::Text, Some(AnswerValue::Text(t))) => t.clone(),
                _ => String::new(),
            };
            record.push(neutralise(&cell));
        }
        self.writer.write_record(&record)
    }

    pub fn finish(self) -> Result<Vec<u8>, csv::Error> {
        self.writer
            .into_inner()
            .map_err(|e| csv::Error::from(std::io::Error::other(e.to_string())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn dates_and_formula_cells() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(1_795_000_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(iso_utc(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(neutralise("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(neutralise("-1"), "'-1");
        assert_eq!(neutralise("fine"), "fine");
    }

    #[test]
    fn starts_with_a_bom_and_keeps_utf8_and_neutralising() {
        let def: SurveyDef = serde_json::from_value(serde_json::json!({
            "title": "t",
            "questions": [{"id": "why", "kind": "text", "title": "Pourquoi ?"}]
        }))
        .unwrap();
        let mut w = CsvExport::new(&def).unwrap();
        let answer = |t: &str| ResponseRow {
            account: "a".into(),
            at: 0,
            answers: vec![("why".into(), AnswerValue::Text(t.into()))],
        };
        w.push(&answer("Très bien, 很好")).unwrap();
        w.push(&answer("=HYPERLINK(\"x\")")).unwrap();
        let bytes = w.finish().unwrap();
        assert!(bytes.starts_with(BOM));
        let text = std::str::from_utf8(&bytes[BOM.len()..]).unwrap();
        assert_eq!(
            text,
            "submitted_at,account,Pourquoi ?\n\
             1970-01-01T00:00:00Z,a,\"Très bien, 很好\"\n\
             1970-01-01T00:00:00Z,a,\"'=HYPERLINK(\"\"x\"\")\"\n"
        );
    }
}
