// Whether a file is named by its content: included by build.rs (the embedded files) and by
// assets.rs (the files of `--dir`), so that both judge a name the same way.

/// Whether the file name of `path` is `stem.<hash>.ext`, `<hash>` being the first 16 hex digits
/// of the SHA-256 of `bytes` (scripts/hash-names.mjs names the wasm package so). Such a file
/// never changes under its name: a browser may keep it for good.
pub(crate) fn named_by_content(path: &str, bytes: &[u8]) -> bool {
    use sha2::{Digest, Sha256};
    let name = path.rsplit('/').next().unwrap_or(path);
    let mut parts = name.split('.');
    let (Some(_stem), Some(hash), Some(_ext)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if hash.len() != 16 || !hash.bytes().all(hex) {
        return false;
    }
    let digest = Sha256::digest(bytes);
    let written: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    written == hash
}
