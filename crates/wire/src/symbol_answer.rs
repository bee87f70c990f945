//! The answers to `pith symbol` (where a name is defined) and `pith usages` (where it is used).
//! Both say their resolution (`syntactic`: matched by name as written, not through types). A
//! symbol answer shows the best few definitions and counts the rest. A usages answer is built
//! in two shapes, a flat list of `file:line` sites and a grouping by file (busiest first, the
//! tail counted), and whichever is smaller in bytes is sent: few uses come flat and complete,
//! many come grouped in a size that does not grow with the number of uses.

use pith_model::symbol::{Definition, FileUses};
use serde::Serialize;

use crate::{SYMBOL_MANY_BUDGET, USAGES_MANY_BUDGET};

/// How names are resolved: by name and syntactic qualifier, not by type.
pub const RESOLUTION: &str = "syntactic";

/// Definitions shown at most; the budget may show fewer.
const DEFINITIONS: usize = 8;
/// The grouped usages shape is filled with files, then lines, up to this many bytes, leaving
/// headroom under [`USAGES_MANY_BUDGET`] for a long last path.
const GROUPED_FILL: usize = USAGES_MANY_BUDGET - 100;

/// One definition, as the shaper needs it (from the model's [`Definition`], one mapping for
/// every front end).
#[derive(Debug, Clone, Copy)]
pub struct SymbolDef<'a> {
    pub kind: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub container: Option<&'a str>,
}

/// The uses of a symbol in one file.
#[derive(Debug, Clone, Copy)]
pub struct UsesInFile<'a> {
    pub file: &'a str,
    /// Ascending line numbers, one per line with a use.
    pub lines: &'a [u32],
}

impl<'a> From<&'a Definition> for SymbolDef<'a> {
    fn from(d: &'a Definition) -> Self {
        SymbolDef {
            kind: d.kind.name(),
            file: &d.file,
            line: d.line,
            container: d.container.as_deref(),
        }
    }
}

impl<'a> From<&'a FileUses> for UsesInFile<'a> {
    fn from(f: &'a FileUses) -> Self {
        UsesInFile {
            file: &f.file,
            lines: &f.lines,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolAnswer {
    pub resolution: &'static str,
    pub symbol: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<DefinitionOut>,
    /// Definitions not shown.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more: usize,
}

impl SymbolAnswer {
    /// Whether anything was found (the exit code's question).
    pub fn found(&self) -> bool {
        !self.definitions.is_empty()
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionOut {
    pub kind: String,
    /// `file:line`.
    pub at: String,
    /// The container: `Type` for a method, the module or package for a top-level item.
    #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
}

/// Shapes the definitions of `symbol` (already in best-first order) into the answer.
pub fn symbol_answer(symbol: &str, defs: &[SymbolDef]) -> SymbolAnswer {
    let out: Vec<DefinitionOut> = defs
        .iter()
        .take(DEFINITIONS)
        .map(|d| DefinitionOut {
            kind: d.kind.to_owned(),
            at: format!("{}:{}", d.file, d.line),
            container: d.container.filter(|c| !c.is_empty()).map(str::to_owned),
        })
        .collect();
    let mut answer = SymbolAnswer {
        resolution: RESOLUTION,
        symbol: symbol.to_owned(),
        more: defs.len() - out.len(),
        definitions: out,
    };
    while answer.definitions.len() > 1 && size(&answer) > SYMBOL_MANY_BUDGET {
        answer.definitions.pop();
        answer.more += 1;
    }
    answer
}

/// The usages answer: one of two shapes, whichever is smaller.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum UsagesAnswer {
    Flat(FlatUsages),
    Grouped(GroupedUsages),
}

impl UsagesAnswer {
    /// Uses found, shown or not.
    pub fn count(&self) -> usize {
        match self {
            UsagesAnswer::Flat(a) => a.count,
            UsagesAnswer::Grouped(a) => a.count,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlatUsages {
    pub resolution: &'static str,
    pub symbol: String,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub count: usize,
    /// Every use as `file:line`, in path order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupedUsages {
    pub resolution: &'static str,
    pub symbol: String,
    pub count: usize,
    /// Busiest files first.
    pub files: Vec<FileOut>,
    /// Files with uses not shown.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_files: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileOut {
    pub file: String,
    /// Uses in this file; `lines` shows the first of them.
    pub uses: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
}

/// Shapes the uses of `symbol` (files in path order) into the smaller of the two shapes.
pub fn usages_answer(symbol: &str, files: &[UsesInFile]) -> UsagesAnswer {
    let flat = flat(symbol, files);
    if files.is_empty() {
        return UsagesAnswer::Flat(flat);
    }
    let grouped = grouped(symbol, files);
    if size(&grouped) < size(&flat) {
        UsagesAnswer::Grouped(grouped)
    } else {
        UsagesAnswer::Flat(flat)
    }
}

fn flat(symbol: &str, files: &[UsesInFile]) -> FlatUsages {
    let uses: Vec<String> = files
        .iter()
        .flat_map(|f| f.lines.iter().map(move |l| format!("{}:{l}", f.file)))
        .collect();
    FlatUsages {
        resolution: RESOLUTION,
        symbol: symbol.to_owned(),
        count: uses.len(),
        uses,
    }
}

/// Files busiest first, each with its first line, as many as fit in [`GROUPED_FILL`]; then
/// more lines, round-robin over the shown files, while they fit. Filling to a size (rather
/// than capping counts) is what keeps the answer the same size however many uses there are.
fn grouped(symbol: &str, files: &[UsesInFile]) -> GroupedUsages {
    let mut order: Vec<&UsesInFile> = files.iter().filter(|f| !f.lines.is_empty()).collect();
    order.sort_by(|a, b| b.lines.len().cmp(&a.lines.len()).then(a.file.cmp(b.file)));
    let mut answer = GroupedUsages {
        resolution: RESOLUTION,
        symbol: symbol.to_owned(),
        count: order.iter().map(|f| f.lines.len()).sum(),
        files: Vec::new(),
        more_files: order.len(),
    };
    for f in &order {
        answer.files.push(FileOut {
            file: f.file.to_owned(),
            uses: f.lines.len(),
            lines: vec![f.lines[0]],
        });
        answer.more_files -= 1;
        if answer.files.len() > 1 && size(&answer) > GROUPED_FILL {
            answer.files.pop();
            answer.more_files += 1;
            break;
        }
    }
    let most = order.iter().map(|f| f.lines.len()).max().unwrap_or(0);
    'fill: for k in 1..most {
        for (i, f) in order.iter().take(answer.files.len()).enumerate() {
            let Some(&line) = f.lines.get(k) else {
                continue;
            };
            answer.files[i].lines.push(line);
            if size(&answer) > GROUPED_FILL {
                answer.files[i].lines.pop();
                break 'fill;
            }
        }
    }
    answer
}

fn size<T: Serialize>(answer: &T) -> usize {
    crate::to_json(answer).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SYMBOL_ONE_BUDGET, USAGES_FEW_BUDGET};

    fn def<'a>(file: &'a str, line: u32, container: Option<&'a str>) -> SymbolDef<'a> {
        SymbolDef {
            kind: "function",
            file,
            line,
            container,
        }
    }

    /// `uses` uses over `files` files: one in each, the rest spread over the first quarter.
    fn spread(uses: usize, files: usize) -> (Vec<String>, Vec<Vec<u32>>) {
        let names: Vec<String> = (0..files)
            .map(|i| format!("src/module_{i:02}/handlers.rs"))
            .collect();
        let mut lines = vec![Vec::new(); files];
        for u in 0..uses {
            let f = if u < files {
                u
            } else {
                (u * 7919) % (files / 4).max(1)
            };
            let next = lines[f].last().map_or(10, |l| l + 13);
            lines[f].push(next);
        }
        (names, lines)
    }

    fn answer(uses: usize, files: usize) -> String {
        let (names, lines) = spread(uses, files);
        let input: Vec<UsesInFile> = names
            .iter()
            .zip(&lines)
            .map(|(file, lines)| UsesInFile { file, lines })
            .collect();
        let a = usages_answer("parse_port", &input);
        assert_eq!(a.count(), uses);
        crate::to_json(&a)
    }

    #[test]
    fn one_definition_fits_its_budget() {
        let a = symbol_answer(
            "parse_port",
            &[def(
                "crates/runner/src/cargo/nextest.rs",
                1234,
                Some("NextestAdapter"),
            )],
        );
        let json = crate::to_json(&a);
        assert!(
            json.len() <= SYMBOL_ONE_BUDGET,
            "{} bytes: {json}",
            json.len()
        );
        assert_eq!(
            json,
            r#"{"resolution":"syntactic","symbol":"parse_port","definitions":[{"kind":"function","at":"crates/runner/src/cargo/nextest.rs:1234","in":"NextestAdapter"}]}"#
        );
    }

    #[test]
    fn many_definitions_show_the_first_and_count_the_rest() {
        let files: Vec<String> = (0..40).map(|i| format!("src/m{i}/lib.rs")).collect();
        let defs: Vec<SymbolDef> = files.iter().map(|f| def(f, 3, Some("Config"))).collect();
        let a = symbol_answer("load", &defs);
        assert_eq!(a.definitions.len(), DEFINITIONS);
        assert_eq!(a.definitions.len() + a.more, 40);
        assert!(size(&a) <= SYMBOL_MANY_BUDGET);
    }

    #[test]
    fn nothing_found_is_just_the_question() {
        assert_eq!(
            crate::to_json(&symbol_answer("nope", &[])),
            r#"{"resolution":"syntactic","symbol":"nope"}"#
        );
        let a = usages_answer("nope", &[]);
        assert_eq!(a.count(), 0);
        assert_eq!(
            crate::to_json(&a),
            r#"{"resolution":"syntactic","symbol":"nope"}"#
        );
    }

    #[test]
    fn few_uses_come_flat_and_complete() {
        for files in 1..=9 {
            let json = answer(9, files);
            assert!(
                json.len() <= USAGES_FEW_BUDGET,
                "{} bytes: {json}",
                json.len()
            );
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let shown: usize = match v["uses"].as_array() {
                Some(u) => u.len(),
                None => v["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["lines"].as_array().unwrap().len())
                    .sum(),
            };
            assert_eq!(shown, 9, "every one of few uses is shown: {json}");
        }
        assert!(answer(9, 9).contains(r#""uses":["src/module_00/handlers.rs:10","#));
    }

    #[test]
    fn many_uses_come_grouped_within_budget() {
        let json = answer(480, 60);
        assert!(
            json.len() <= USAGES_MANY_BUDGET,
            "{} bytes: {json}",
            json.len()
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let files = v["files"].as_array().expect("grouped");
        let shown_uses: u64 = files.iter().map(|f| f["uses"].as_u64().unwrap()).sum();
        let more = v["moreFiles"].as_u64().unwrap();
        assert_eq!(
            files.len() as u64 + more,
            60,
            "every file is shown or counted"
        );
        assert!(shown_uses < 480 && v["count"] == 480);
        let counts: Vec<u64> = files.iter().map(|f| f["uses"].as_u64().unwrap()).collect();
        assert!(
            counts.windows(2).all(|w| w[0] >= w[1]),
            "busiest first: {counts:?}"
        );
    }

    #[test]
    fn grouped_answer_stops_growing_with_the_use_count() {
        let sizes: Vec<usize> = [128, 480, 5000]
            .iter()
            .map(|&n| answer(n, 60).len())
            .collect();
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(hi - lo <= 16, "sizes {sizes:?}");
        assert!(*hi <= USAGES_MANY_BUDGET);
    }

    #[test]
    fn the_smaller_shape_wins_without_a_threshold() {
        // Many uses in one file: grouped is smaller (the path is written once) and complete.
        let lines: Vec<u32> = (1..=12).collect();
        let a = usages_answer(
            "x",
            &[UsesInFile {
                file: "src/a.rs",
                lines: &lines,
            }],
        );
        assert!(matches!(a, UsagesAnswer::Grouped(_)));
        assert_eq!(
            crate::to_json(&a),
            r#"{"resolution":"syntactic","symbol":"x","count":12,"files":[{"file":"src/a.rs","uses":12,"lines":[1,2,3,4,5,6,7,8,9,10,11,12]}]}"#
        );
        // One use each in two files: flat is smaller.
        let one = [7u32];
        let a = usages_answer(
            "x",
            &[
                UsesInFile {
                    file: "src/a.rs",
                    lines: &one,
                },
                UsesInFile {
                    file: "src/b.rs",
                    lines: &one,
                },
            ],
        );
        assert_eq!(
            crate::to_json(&a),
            r#"{"resolution":"syntactic","symbol":"x","count":2,"uses":["src/a.rs:7","src/b.rs:7"]}"#
        );
    }
}
