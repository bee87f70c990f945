fn main() {
    println!("release tooling");
}

#[cfg(test)]
mod tests {
    #[test]
    fn needs_release_credentials() {
        // Only meaningful on the release machine: never part of `cargo test`.
        assert!(std::env::var("RELEASE_TOKEN").is_ok(), "RELEASE_TOKEN is not set");
    }
}
