//! Finds the line of a key in scene text, so validation errors can say where the problem is, and
//! whether a key is given at all.

use toml::de::{DeTable, DeValue};

/// 1-based line of a byte offset.
pub fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Whether `text` gives the key at dotted `path` itself (`grid.nx`), not only a table above it.
pub fn has_key(text: &str, path: &str) -> bool {
    let Ok(root) = DeTable::parse(text) else {
        return false;
    };
    let mut table = root.get_ref();
    let mut parts = path.split('.').peekable();
    while let Some(name) = parts.next() {
        let Some(value) = table.get(name) else {
            return false;
        };
        if parts.peek().is_none() {
            return true;
        }
        match value.get_ref() {
            DeValue::Table(t) => table = t,
            _ => return false,
        }
    }
    false
}

/// 1-based line of a dotted key path such as `grid.nx` or `water.bump[1].radius`; for a path that is
/// only partly present, the line of its deepest present part.
pub fn line_of_key(text: &str, path: &str) -> Option<usize> {
    let root = DeTable::parse(text).ok()?;
    let mut table = root.get_ref();
    let mut found: Option<usize> = None;
    for part in path.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let Some((key, value)) = table.get_key_value(name) else {
            break;
        };
        found = Some(line_of_offset(text, key.span().start));
        let mut value = value;
        if let (Some(i), DeValue::Array(items)) = (index, value.get_ref()) {
            match items.get(i) {
                Some(item) => {
                    found = Some(line_of_offset(text, item.span().start));
                    value = item;
                }
                None => break,
            }
        }
        match value.get_ref() {
            DeValue::Table(t) => table = t,
            _ => break,
        }
    }
    found
}

/// The dotted path of the key whose value spans byte `offset` (`grid.nx`, `water.bump[1].x`),
/// for errors the TOML reader reports by position only (a wrong type). Where the text does not
/// parse as TOML (a duplicate key), the key written on that line under its table's header.
pub fn key_at(text: &str, offset: usize) -> Option<String> {
    fn search(table: &DeTable, offset: usize, path: &str) -> Option<String> {
        for (key, value) in table.iter() {
            let name = if path.is_empty() {
                key.get_ref().to_string()
            } else {
                format!("{path}.{}", key.get_ref())
            };
            // The key, its value, or anything between them (`=`, spaces).
            let (k, v) = (key.span(), value.span());
            if !(k.start..=v.end.max(k.end)).contains(&offset) {
                continue;
            }
            return Some(match value.get_ref() {
                DeValue::Table(t) => search(t, offset, &name).unwrap_or(name),
                DeValue::Array(items) => items
                    .iter()
                    .enumerate()
                    .find(|(_, item)| item.span().contains(&offset))
                    .map(|(i, item)| match item.get_ref() {
                        DeValue::Table(t) => {
                            let at = format!("{name}[{i}]");
                            search(t, offset, &at).unwrap_or(at)
                        }
                        _ => name.clone(),
                    })
                    .unwrap_or(name),
                _ => name,
            });
        }
        None
    }
    if let Ok(root) = DeTable::parse(text) {
        if let Some(path) = search(root.get_ref(), offset, "") {
            return Some(path);
        }
    }
    // The line's own key under the last header above it.
    let start = text[..offset.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("").trim();
    let header = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|h| h.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    if line.starts_with('[') {
        return Some(line.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    }
    let key = line.split('=').next()?.trim();
    if key.is_empty() {
        return None;
    }
    Some(match header {
        Some(h) => format!("{h}.{key}"),
        None => key.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_and_array_keys() {
        let text = "[grid]\nnx = 1\nny = 2\n\n[[water.bump]]\nx = 1\n\n[[water.bump]]\nradius = -1\n";
        assert_eq!(line_of_key(text, "grid.nx"), Some(2));
        assert_eq!(line_of_key(text, "grid.ny"), Some(3));
        assert_eq!(line_of_key(text, "water.bump[1].radius"), Some(9));
        assert_eq!(line_of_key(text, "nothing"), None);
    }
}
