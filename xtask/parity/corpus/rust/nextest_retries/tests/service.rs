use std::path::PathBuf;

#[test]
fn reaches_the_service() {
    // Fails on its first attempt (a service still starting), passes when nextest retries it
    // in a new process: the marker survives between attempts.
    let marker = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("service-attempted");
    let first = !marker.exists();
    std::fs::write(&marker, "1").unwrap();
    assert!(!first, "connection refused");
}
