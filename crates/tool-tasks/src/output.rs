//! Reading a task's output file for `TaskOutput`: the whole file when it is small, else its last
//! [`MAX_SHOWN_OUTPUT_BYTES`] cut at a line start, with a note giving the full size and the path.
//! Memory stays bounded whatever the task printed. Formatting the reply lives in `lib.rs`.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::constants::MAX_SHOWN_OUTPUT_BYTES;

/// The part of the output file to show, or an empty string when it does not exist yet.
pub fn read_tail(path: &Path) -> std::io::Result<String> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(e),
    };
    let size = file.metadata()?.len();
    if size <= MAX_SHOWN_OUTPUT_BYTES {
        let mut bytes = Vec::with_capacity(size as usize);
        file.read_to_end(&mut bytes)?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    file.seek(SeekFrom::Start(size - MAX_SHOWN_OUTPUT_BYTES))?;
    let mut bytes = Vec::with_capacity(MAX_SHOWN_OUTPUT_BYTES as usize);
    file.take(MAX_SHOWN_OUTPUT_BYTES).read_to_end(&mut bytes)?;
    // Start at a line boundary when there is one in the first half.
    let start = bytes.iter().position(|b| *b == b'\n').filter(|i| *i < bytes.len() / 2).map_or(0, |i| i + 1);
    let tail = String::from_utf8_lossy(&bytes[start..]);
    Ok(format!(
        "[Showing the last {} of {} bytes; the full output is in {}]\n{tail}",
        bytes.len() - start,
        size,
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_whole_large_files_tail() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none");
        assert_eq!(read_tail(&missing).unwrap(), "");
        let small = dir.path().join("small");
        std::fs::write(&small, "a\nb\n").unwrap();
        assert_eq!(read_tail(&small).unwrap(), "a\nb\n");
        let big = dir.path().join("big");
        let text: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&big, &text).unwrap();
        let shown = read_tail(&big).unwrap();
        assert!(shown.starts_with("[Showing the last "), "{}", &shown[..100]);
        assert!(shown.ends_with("line 19999\n"));
        let second_line = shown.lines().nth(1).unwrap();
        assert!(second_line.starts_with("line "), "cut at a line start: {second_line}");
    }
}
