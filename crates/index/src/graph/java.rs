//! Java's edges: a file depends on the files of its package that declare a type it names
//! (same-package classes need no import, and `src/main` and `src/test` share packages; a file
//! declaring no type, `package-info.java`, is coarse: every file of its package), on every file that extends or implements a type it declares (a call through an
//! interface runs its implementations: dependency injection finds them by scanning, not by
//! name), and on the class files its imports and qualified names reach (`import a.b.C` and `a.b.C.m()` → `C.java` of package
//! `a.b`; `import a.b.*` → every file of `a.b`; nested `a.b.C.Inner` and `import static` →
//! `C.java`). A string literal naming a workspace class (`Class.forName("a.b.C")`) counts as a
//! use. Kotlin files are not listed by the walk, so they give no edges.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::lex::{self, Kind, Style, Tok};

/// Edges `(from, to)` among the `.java` files of `files`; Java imports are all static, so no
/// file is left unplaced.
pub(super) fn edges(
    _root: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut packages: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut classes: HashMap<(String, &str), Vec<&str>> = HashMap::new();
    let mut names: Vec<(&str, Vec<String>)> = Vec::new();
    let mut shapes: Vec<(&str, String, Shape)> = Vec::new();
    for f in files.iter().filter(|f| f.ends_with(".java")) {
        let Some(text) = read(f) else {
            continue;
        };
        let toks = lex::tokens(&text, Style::default());
        let package = package_of(&toks);
        shapes.push((f, package.clone(), shape(&toks)));
        let stem = f.rsplit('/').next().unwrap_or(f).trim_end_matches(".java");
        packages.entry(package.clone()).or_default().push(f);
        classes.entry((package.clone(), stem)).or_default().push(f);
        let mut used = lex::dotted_chains(&toks);
        // The package clause names the file's own package: the same-package rule's business.
        used.retain(|c| *c != package);
        used.extend(toks.iter().filter_map(|t| match t.kind {
            Kind::Str(s) if s.contains('.') && s.len() < 200 => Some(s.to_owned()),
            _ => None,
        }));
        names.push((f, used));
    }
    let mut out = same_package(&shapes);
    // A supertype's file depends on its subtypes' files, wherever they are.
    let mut declaring: HashMap<&str, Vec<&str>> = HashMap::new();
    for (f, _, sh) in &shapes {
        for t in &sh.declares {
            declaring.entry(t.as_str()).or_default().push(f);
        }
    }
    for (f, _, sh) in &shapes {
        for sup in &sh.supers {
            for d in declaring.get(sup.as_str()).into_iter().flatten() {
                if d != f {
                    out.push(((*d).to_owned(), (*f).to_owned()));
                }
            }
        }
    }
    for (f, used) in &names {
        for name in used {
            for t in resolve(name, &packages, &classes) {
                if t != *f {
                    out.push(((*f).to_owned(), t.to_owned()));
                }
            }
        }
    }
    (out, Vec::new())
}

/// What a file declares and names: the types it declares, the supertypes they extend or
/// implement, and every identifier it mentions.
#[derive(Default)]
struct Shape {
    declares: Vec<String>,
    supers: Vec<String>,
    idents: std::collections::HashSet<String>,
}

/// A file's [`Shape`] from its tokens: `class`/`interface`/`enum`/`record` followed by a name
/// (not `Foo.class`), and the names between it and its body's `{` (`extends`, `implements`,
/// type arguments: an extra name only adds an edge).
fn shape(toks: &[Tok<'_>]) -> Shape {
    let mut sh = Shape::default();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if let Some(id) = t.ident() {
            sh.idents.insert(id.to_owned());
            let after_dot = i > 0 && toks[i - 1].is(b'.');
            if matches!(id, "class" | "interface" | "enum" | "record") && !after_dot {
                if let Some(name) = toks.get(i + 1).and_then(Tok::ident) {
                    sh.declares.push(name.to_owned());
                    let mut j = i + 2;
                    while j < toks.len() && !toks[j].is(b'{') && !toks[j].is(b';') {
                        if let Some(n) = toks[j].ident() {
                            if !matches!(n, "extends" | "implements" | "permits") {
                                sh.supers.push(n.to_owned());
                            }
                        }
                        j += 1;
                    }
                }
            }
        }
        i += 1;
    }
    sh
}

/// Edges within each package: to the files declaring a type the file names. A file that
/// declares nothing (`package-info.java`) is read coarsely: it depends on every file of its
/// package, and they on it.
fn same_package(shapes: &[(&str, String, Shape)]) -> Vec<(String, String)> {
    let mut by_package: BTreeMap<&str, Vec<&(&str, String, Shape)>> = BTreeMap::new();
    for s in shapes {
        by_package.entry(s.1.as_str()).or_default().push(s);
    }
    let mut out = Vec::new();
    for members in by_package.values() {
        for (a, _, sa) in members.iter().copied() {
            let named: Vec<&str> = members
                .iter()
                .filter(|(b, _, sb)| b != a && sb.declares.iter().any(|t| sa.idents.contains(t)))
                .map(|(b, ..)| *b)
                .collect();
            if sa.declares.is_empty() {
                for (b, ..) in members.iter().copied().filter(|(b, ..)| b != a) {
                    out.push(((*a).to_owned(), (*b).to_owned()));
                    out.push(((*b).to_owned(), (*a).to_owned()));
                }
            } else {
                out.extend(named.into_iter().map(|b| ((*a).to_owned(), b.to_owned())));
            }
        }
    }
    out
}

/// The `package a.b;` of a file; `""` for the default package.
fn package_of(toks: &[Tok<'_>]) -> String {
    // Annotations may precede the declaration (`@Generated package a;` in package-info).
    let Some(i) = toks.iter().position(|t| t.ident() == Some("package")) else {
        return String::new();
    };
    let mut name = String::new();
    for t in &toks[i + 1..] {
        match t.kind {
            Kind::Ident(s) => name.push_str(s),
            Kind::Punct(b'.') => name.push('.'),
            _ => break,
        }
    }
    name
}

/// The files a dotted name reaches: the longest prefix naming a workspace package, then the
/// class after it (`a.b.C...` → `C.java`), or the whole package when the name is the package
/// (a wildcard import) or its class has no file of its own name (a secondary class).
fn resolve<'f>(
    name: &str,
    packages: &BTreeMap<String, Vec<&'f str>>,
    classes: &HashMap<(String, &str), Vec<&'f str>>,
) -> Vec<&'f str> {
    let segs: Vec<&str> = name.split('.').collect();
    if segs
        .iter()
        .any(|s| s.is_empty() || s.contains(char::is_whitespace))
    {
        return Vec::new();
    }
    for k in (1..=segs.len()).rev() {
        let package = segs[..k].join(".");
        let Some(all) = packages.get(&package) else {
            continue;
        };
        let Some(class) = segs.get(k) else {
            return all.clone();
        };
        if let Some(files) = classes.get(&(package, *class)) {
            return files.clone();
        }
        if class.starts_with(|c: char| c.is_uppercase()) {
            return all.clone();
        }
        // `pkg.field`: a local that shares a package's name, not a class.
        return Vec::new();
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::super::lex::testing::{pairs, run};
    use super::*;

    const MAVEN: &[(&str, &str)] = &[
        ("pom.xml", "<project><artifactId>shop</artifactId></project>\n"),
        ("src/main/java/com/shop/Cart.java", "package com.shop;\n\nimport com.shop.money.Amount;\nimport java.util.List;\n\npublic class Cart {\n    Amount total() { return Pricing.sum(); }\n}\n"),
        ("src/main/java/com/shop/Pricing.java", "package com.shop;\n\nimport static com.shop.money.Amount.ZERO;\n\nclass Pricing {\n    static Amount sum() { return ZERO; }\n}\n"),
        ("src/main/java/com/shop/money/Amount.java", "package com.shop.money;\n\npublic class Amount {\n    public static final Amount ZERO = new Amount();\n    public static class Currency {}\n}\n"),
        ("src/main/java/com/shop/money/Rates.java", "package com.shop.money;\n\n// import com.shop.Cart;\nclass Rates { String s = \"com.shop.Cart is not used here\"; }\n"),
        ("src/main/java/com/shop/db/Store.java", "package com.shop.db;\n\nimport com.shop.money.Amount.Currency;\n\npublic class Store {\n    Object load() throws Exception { return Class.forName(\"com.shop.Cart\"); }\n}\n"),
        ("src/main/java/com/shop/report/Report.java", "package com.shop.report;\n\nimport com.shop.money.GeneratedRates;\n\npublic class Report {\n    Object db = new com.shop.db.Store();\n}\n"),
        ("src/test/java/com/shop/CartTest.java", "package com.shop;\n\nimport com.shop.money.*;\nimport org.junit.jupiter.api.Test;\n\nclass CartTest {\n    @Test void total() { new Cart().total(); }\n}\n"),
    ];

    #[test]
    fn maven_layout_with_shared_packages_and_a_wildcard_import() {
        let (edges, unplaced) = run(MAVEN, edges);
        let cart = "src/main/java/com/shop/Cart.java";
        let pricing = "src/main/java/com/shop/Pricing.java";
        let amount = "src/main/java/com/shop/money/Amount.java";
        let rates = "src/main/java/com/shop/money/Rates.java";
        let store = "src/main/java/com/shop/db/Store.java";
        let test = "src/test/java/com/shop/CartTest.java";
        assert_eq!(
            edges,
            pairs(&[
                // Same package: only the classes a file names.
                (cart, pricing),
                (cart, amount),
                (pricing, amount),
                (store, amount),
                (store, cart),
                ("src/main/java/com/shop/report/Report.java", store),
                // A class without a file of its name (generated): its whole package.
                ("src/main/java/com/shop/report/Report.java", amount),
                ("src/main/java/com/shop/report/Report.java", rates),
                (test, cart),
                (test, amount),
                (test, rates),
            ])
        );
        assert!(unplaced.is_empty());
    }

    #[test]
    fn an_interface_reaches_its_implementations_and_package_info_its_package() {
        let files: &[(&str, &str)] = &[
            (
                "src/main/java/shop/Payments.java",
                "package shop;
public interface Payments { int pay(int c); }
",
            ),
            (
                "src/main/java/shop/Stripe.java",
                "package shop;
class Stripe implements Payments, java.io.Serializable { public int pay(int c) { return c; } }
",
            ),
            (
                "src/main/java/shop/other/Audit.java",
                "package shop.other;
import shop.Payments;
public abstract class Audit<T> implements Payments {}
",
            ),
            (
                "src/main/java/shop/package-info.java",
                "@Deprecated
package shop;
",
            ),
            (
                "src/test/java/shop/PaymentsTest.java",
                "package shop;
class PaymentsTest { @Inject Payments p; void t() { p.pay(1); } }
",
            ),
        ];
        let (edges, _) = run(files, edges);
        let has = |a: &str, b: &str| edges.contains(&(format!("src/{a}"), format!("src/{b}")));
        assert!(
            has(
                "test/java/shop/PaymentsTest.java",
                "main/java/shop/Payments.java"
            ),
            "{edges:?}"
        );
        assert!(
            has("main/java/shop/Payments.java", "main/java/shop/Stripe.java"),
            "{edges:?}"
        );
        assert!(
            has(
                "main/java/shop/Payments.java",
                "main/java/shop/other/Audit.java"
            ),
            "{edges:?}"
        );
        assert!(
            has(
                "main/java/shop/package-info.java",
                "main/java/shop/Stripe.java"
            ),
            "{edges:?}"
        );
        assert!(
            has(
                "main/java/shop/Stripe.java",
                "main/java/shop/package-info.java"
            ),
            "{edges:?}"
        );
        assert!(
            !has(
                "test/java/shop/PaymentsTest.java",
                "main/java/shop/Stripe.java"
            ),
            "reached through the interface, not named: {edges:?}"
        );
    }
}
