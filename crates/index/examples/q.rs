fn main() {
    let a: Vec<String> = std::env::args().collect();
    let t = std::time::Instant::now();
    let i = pith_index::Index::open(std::path::Path::new(&a[1])).unwrap();
    let u = i.usages(&a[2]);
    eprintln!("{:?} files {} total {:?}", i.stats().parsed, u.len(), t.elapsed());
}
