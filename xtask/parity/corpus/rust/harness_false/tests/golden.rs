// A golden-file check with its own main (no libtest harness), as snapshot and fuzz-corpus
// checks often are.
fn main() {
    let cases = [("a b c", 3), ("", 0), ("  one  ", 1)];
    let mut failed = 0;
    for (text, want) in cases {
        let got = parser::words(text);
        if got != want {
            eprintln!("golden: {text:?}: got {got}, want {want}");
            failed += 1;
        }
    }
    if failed > 0 {
        std::process::exit(1);
    }
    println!("golden: {} cases ok", cases.len());
}
