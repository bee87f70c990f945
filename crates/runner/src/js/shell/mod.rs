//! A `package.json` script read as `sh -c` reads it (npm, pnpm, yarn and bun run scripts
//! through `/bin/sh` on Unix): the and-or list it is (`&&`, `||`, `;` and newlines, equal
//! precedence, left to right), each command's words after quote removal, parameter expansion
//! (`$NAME`, `${NAME}`, with field splitting outside double quotes), tilde expansion and the
//! glob patterns sh expands before the program sees its arguments (`node --test test/*.js`
//! hands node the files, not the pattern; [`expand`]).
//!
//! pith reads only what it needs to follow the script. A command with syntax it does not
//! interpret (a pipe, a redirection, a special parameter, `${X:-y}`, `&`) is marked
//! [`Cmd::shell`]: it runs as npm runs it, `sh -c '<its own text>'`. Syntax that spans commands
//! (subshells, command substitution, backquotes, compound commands, comments, unterminated
//! quotes) makes the whole script one such command. That text is the project's own script,
//! never input: ids and paths pith adds never go through a shell.
//!
//! Never panics, whatever the script (a property test holds it).
//!
//! `reader` is the one pass over the script's characters behind [`parse`]; pathname expansion
//! (`glob`) is apart: it reads the file system, and the plan asks for it word by word.

mod glob;
mod reader;

pub(crate) use glob::{expand, fnmatch};
use reader::Reader;

/// One word after expansion and quote removal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Word {
    pub(crate) text: String,
    /// The word as a glob pattern when it has glob characters outside quotes: those live,
    /// every quoted character escaped with `\`. sh expands it; no match leaves [`Word::text`].
    pub(crate) pattern: Option<String>,
    /// A `NAME=value` assignment: the `=` outside quotes after a valid name written plainly.
    pub(crate) assign: bool,
    /// Some of it came from a parameter or tilde expansion.
    pub(crate) expanded: bool,
}

/// How a command joins the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// The first command, or after `;` or a newline: it runs whatever came before.
    Then,
    /// After `&&`: it runs when the status so far is 0.
    And,
    /// After `||`: it runs when the status so far is not 0.
    Or,
}

/// One command of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cmd {
    pub(crate) op: Op,
    pub(crate) words: Vec<Word>,
    /// Its own text in the script, trimmed.
    pub(crate) text: String,
    /// It uses syntax pith does not interpret: it runs as `sh -c` [`Cmd::text`].
    pub(crate) shell: bool,
}

/// The commands of `script`; `env` gives the value of a variable for `$NAME` (the shell's
/// environment: what the package manager sets for scripts, then the caller's).
pub(crate) fn parse(script: &str, env: &dyn Fn(&str) -> Option<String>) -> Vec<Cmd> {
    let mut r = Reader::new(script, env, false);
    r.read();
    if r.whole {
        return vec![opaque(script, env)];
    }
    r.cmds
}

/// The whole script as one command run by sh, its words read as well as they can be (the
/// program's name for the answer).
fn opaque(script: &str, env: &dyn Fn(&str) -> Option<String>) -> Cmd {
    let mut r = Reader::new(script, env, true);
    r.read();
    r.end_word();
    let words = match r.cmds.into_iter().next() {
        Some(c) => c.words,
        None => r.words,
    };
    Cmd {
        op: Op::Then,
        words,
        text: script.trim().to_owned(),
        shell: true,
    }
}

/// A shell variable name.
pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// `s` quoted for sh, as npm quotes the arguments it appends to a script (`npm run x -- a b`).
pub(crate) fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".to_owned()),
            "JOBS" => Some("2".to_owned()),
            "FLAGS" => Some(" --a  --b ".to_owned()),
            _ => None,
        }
    }

    fn cmds(s: &str) -> Vec<(Op, Vec<String>, bool)> {
        parse(s, &env)
            .into_iter()
            .map(|c| (c.op, c.words.into_iter().map(|w| w.text).collect(), c.shell))
            .collect()
    }

    fn w(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lists_split_as_sh_splits_them() {
        assert_eq!(
            cmds("tsc --noEmit && vitest run || echo failed ; lint\nnext"),
            [
                (Op::Then, w(&["tsc", "--noEmit"]), false),
                (Op::And, w(&["vitest", "run"]), false),
                (Op::Or, w(&["echo", "failed"]), false),
                (Op::Then, w(&["lint"]), false),
                (Op::Then, w(&["next"]), false),
            ]
        );
        // Quotes and escapes keep separators in their word.
        assert_eq!(
            cmds(r#"jest -t "a && b" 'c;d' e\;f"#),
            [(Op::Then, w(&["jest", "-t", "a && b", "c;d", "e;f"]), false)]
        );
        assert_eq!(
            parse("a &&  b ", &env)
                .iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        // A trailing separator is nothing.
        assert_eq!(cmds("jest;").len(), 1);
        assert_eq!(cmds("\n\njest\n").len(), 1);
    }

    #[test]
    fn syntax_pith_does_not_read_runs_through_sh() {
        // One command of the list: a pipe, a redirection.
        let c = parse("lint && jest 2>&1 | tee out.log", &env);
        assert_eq!(c.len(), 2);
        assert!(!c[0].shell);
        assert!(c[1].shell);
        assert_eq!(c[1].text, "jest 2>&1 | tee out.log");
        assert!(parse("echo $1", &env)[0].shell);
        assert!(parse("echo ${X:-y}", &env)[0].shell);
        // Across commands: the whole script.
        for s in [
            "(cd a && jest)",
            "echo $(date) && jest",
            "jest `x`",
            "if true; then jest; fi",
            "jest & wait",
            "jest # all of them",
            "jest 'unclosed",
            "jest &&",
            "&& jest",
            "{ jest; }",
        ] {
            let c = parse(s, &env);
            assert_eq!(c.len(), 1, "{s}");
            assert!(c[0].shell, "{s}");
            assert_eq!(c[0].text, s.trim(), "{s}");
        }
    }

    #[test]
    fn words_expand_as_sh_expands_them() {
        assert_eq!(
            cmds("jest --maxWorkers=$JOBS \"$FLAGS\" $FLAGS $NOPE ~/x '~' ${JOBS}x"),
            [(
                Op::Then,
                w(&[
                    "jest",
                    "--maxWorkers=2",
                    " --a  --b ",
                    "--a",
                    "--b",
                    "/home/u/x",
                    "~",
                    "2x"
                ]),
                false
            )]
        );
        let c = parse(r#"A=1 B="x y" node --test 'q*' t/*.js "$HOME"/*"#, &env);
        let words = &c[0].words;
        assert!(words[0].assign && words[1].assign && !words[2].assign);
        assert_eq!(words[1].text, "B=x y");
        assert_eq!(words[4].pattern, None);
        assert_eq!(words[5].pattern.as_deref(), Some("t/*.js"));
        assert_eq!(words[6].pattern.as_deref(), Some("/home/u/*"));
        // `=` after the command's name assigns nothing.
        assert!(!parse("jest A=1", &env)[0].words[1].assign);
        assert!(!parse("'A'=1 jest", &env)[0].words[0].assign);
    }

    #[test]
    fn arguments_are_quoted_for_sh() {
        assert_eq!(quote("--coverage"), "--coverage");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,120}") {
            let cs = parse(&s, &env);
            for c in &cs {
                proptest::prop_assert!(!c.words.is_empty() || c.shell);
            }
        }

        #[test]
        fn shell_like_scripts_never_panic(
            s in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("&&"), proptest::strategy::Just("||"),
                    proptest::strategy::Just(";"), proptest::strategy::Just("'"),
                    proptest::strategy::Just("\""), proptest::strategy::Just("\\"),
                    proptest::strategy::Just("$"), proptest::strategy::Just("${"),
                    proptest::strategy::Just("}"), proptest::strategy::Just("*"),
                    proptest::strategy::Just("["), proptest::strategy::Just("A=1"),
                    proptest::strategy::Just(" "), proptest::strategy::Just("jest"),
                    proptest::strategy::Just("~"), proptest::strategy::Just("|"),
                    proptest::strategy::Just("\n"), proptest::strategy::Just("é"),
                ],
                0..24,
            ),
        ) {
            let _ = parse(&s.concat(), &env);
        }

    }
}
