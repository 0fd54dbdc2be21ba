//! The files a scene names (its rasters, arrays and tables), read whole: from bytes a host
//! provided under the file's path, or else from the disk. A web page has no file system: it
//! provides its presets' files (`web/src/lib.rs`), and the same readers take them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What hosts provided, by path (`.` components left out).
static PROVIDED: Mutex<BTreeMap<PathBuf, Arc<[u8]>>> = Mutex::new(BTreeMap::new());

/// The path without its `.` components: `./valley.tif` and `valley.tif` are one file.
fn key(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// Makes `bytes` the file at `path` (as the scene resolves it: relative to the folder the scene
/// was parsed in) for every reader after, in place of the disk's. Providing a path again replaces
/// its bytes.
pub fn provide(path: impl AsRef<Path>, bytes: impl Into<Arc<[u8]>>) {
    let mut provided = PROVIDED.lock().unwrap_or_else(|e| e.into_inner());
    provided.insert(key(path.as_ref()), bytes.into());
}

/// The bytes of the file at `path`: what a host provided, or the disk's.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let provided = PROVIDED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key(path))
        .cloned();
    match provided {
        Some(bytes) => Ok(bytes.to_vec()),
        None => std::fs::read(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provided_file_is_read_in_place_of_the_disks_under_either_spelling() {
        let path = Path::new("./no-such-folder/table.csv");
        assert!(read(path).is_err());
        provide("no-such-folder/table.csv", b"0,1\n1,2\n".to_vec());
        assert_eq!(read(path).unwrap(), b"0,1\n1,2\n");
        assert_eq!(
            crate::io::csv::read_series(Path::new("no-such-folder/table.csv")).unwrap(),
            vec![(0.0, 1.0), (1.0, 2.0)]
        );
    }
}
