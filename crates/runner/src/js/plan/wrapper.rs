//! Coverage and environment wrappers (`c8`, `nyc`, `dotenv --`): one that wraps a runner pith
//! observes stays in front of it, so its own checks (`c8 --100`) and exit code stay the
//! command's; around anything else, the whole command runs as written. Which of a wrapper's
//! words are its own options is each tool's own table.

use super::leaf::resolve;
use super::{lookup, Builder, Call, Step};

impl Builder {
    /// `c8 [options] <command>`, `nyc [options] <command>`, `dotenv [options] -- <command>`:
    /// the wrapper stays in front of the runner it wraps; around anything else, the command
    /// runs as written.
    pub(super) fn wrapper(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, text, scope, ..
        } = call;
        let env = call.env.clone();
        let base = args[0].rsplit('/').next().unwrap_or(&args[0]).to_owned();
        let Some(at) = wrapped_at(&base, args) else {
            return self.verbatim(&call);
        };
        let mut all = scope.env.clone();
        all.extend(env.iter().cloned());
        let path = lookup(&all, "PATH").or_else(|| self.caller.get("PATH").cloned());
        let Some(program) = resolve(&args[0], &scope.cwd, path.as_deref()) else {
            return self.verbatim(&call);
        };
        let before = self.observed;
        match self.dispatch(call.then(&args[at..], env.clone())) {
            Step::Observed(mut js) => {
                let mut w = vec![program.to_string_lossy().into_owned()];
                w.extend(args[1..at].iter().cloned());
                js.wrappers.insert(0, w);
                js.text = text.to_owned();
                Step::Observed(js)
            }
            _ => {
                self.observed = before;
                self.verbatim(&call)
            }
        }
    }
}

/// c8's options that take a value.
const C8_VALUES: &[&str] = &[
    "-r",
    "--reporter",
    "-o",
    "--reports-dir",
    "--report-dir",
    "--temp-directory",
    "--src",
    "-n",
    "--include",
    "-x",
    "--exclude",
    "-e",
    "--extension",
    "--lines",
    "--functions",
    "--branches",
    "--statements",
    "-c",
    "--config",
    "--exclude-after-remap",
    "--merge-async",
    "--allowExternal",
];

/// nyc's options that take a value.
const NYC_VALUES: &[&str] = &[
    "-r",
    "--reporter",
    "--report-dir",
    "-t",
    "--temp-dir",
    "--temp-directory",
    "-n",
    "--include",
    "-x",
    "--exclude",
    "-e",
    "--extension",
    "-i",
    "--require",
    "--cwd",
    "--nycrc-path",
    "--lines",
    "--functions",
    "--branches",
    "--statements",
    "--instrumenter",
    "--source-map",
];

/// Where a wrapper's own options end and the command it runs begins; `None` when it runs no
/// command (`c8 report`, `nyc check-coverage`, `dotenv -p VAR`).
fn wrapped_at(base: &str, args: &[String]) -> Option<usize> {
    let (values, subcommands): (&[&str], &[&str]) = match base {
        "c8" => (C8_VALUES, &["report", "check-coverage"]),
        "nyc" => (
            NYC_VALUES,
            &["report", "check-coverage", "instrument", "merge"],
        ),
        "dotenv" => (&["-e", "-v", "-c"], &[]),
        _ => return None,
    };
    let booleans_with_values = ["--exclude-after-remap", "--merge-async", "--allowExternal"];
    let mut i = 1;
    while let Some(a) = args.get(i) {
        if a == "--" {
            return (i + 1 < args.len()).then_some(i + 1);
        }
        if base == "dotenv" && a == "-p" {
            return None;
        }
        if !a.starts_with('-') {
            if i == 1 && subcommands.contains(&a.as_str()) {
                return None;
            }
            return Some(i);
        }
        let takes = !a.contains('=')
            && values.contains(&a.as_str())
            && !booleans_with_values.contains(&a.as_str());
        i += if takes { 2 } else { 1 };
    }
    None
}
