//! Height fields from PNG files: `specula check` compares specula's compiler with MuJoCo's on
//! scenes whose PNGs are written here by a small hand-made encoder (stored deflate blocks),
//! independent of the `png` crate specula decodes with.

use std::path::{Path, PathBuf};
use std::process::Command;

use specula::check::{check_file, check_file_tampered, CheckOutcome};

/// A fresh directory for one test.
fn tmp(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("specula-hfield-check-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

/// A zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(raw: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = if raw.is_empty() { vec![raw] } else { raw.chunks(65535).collect() };
    for (i, b) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = b.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(b);
    }
    let (mut a, mut s) = (1u32, 0u32);
    for &x in raw {
        a = (a + u32::from(x)) % 65521;
        s = (s + a) % 65521;
    }
    out.extend_from_slice(&((s << 16) | a).to_be_bytes());
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A PNG of colour type `color` and bit depth `depth` from packed rows (filter type 0).
fn png(w: u32, h: u32, color: u8, depth: u8, rows: &[Vec<u8>], palette: Option<&[u8]>) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[depth, color, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    if let Some(p) = palette {
        chunk(&mut out, b"PLTE", p);
    }
    let raw: Vec<u8> = rows.iter().flat_map(|r| std::iter::once(0).chain(r.iter().copied())).collect();
    chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    chunk(&mut out, b"IEND", &[]);
    out
}

/// A scene with the hfield `attrs`, a geom on it and a free sphere above it.
fn scene(dir: &Path, name: &str, attrs: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "<mujoco>\n  <asset>\n    <hfield name=\"h\" {attrs}/>\n  </asset>\n  <worldbody>\n    \
             <geom type=\"hfield\" hfield=\"h\" pos=\"0.1 0 0\"/>\n    <body pos=\"0 0 1\">\n      \
             <freejoint/>\n      <geom type=\"sphere\" size=\"0.1\"/>\n    </body>\n  </worldbody>\n</mujoco>\n"
        ),
    )
    .unwrap();
    path
}

fn assert_matches(path: &Path) {
    match check_file(path) {
        CheckOutcome::Compared(cmp) => {
            assert!(cmp.matched(), "{}: {:?}", path.display(), &cmp.mismatches[..cmp.mismatches.len().min(5)]);
            assert!(cmp.fields > 150, "{}: too little compared", path.display());
        }
        other => panic!("{}: {other:?}", path.display()),
    }
}

/// Rows of pseudo-random bytes (`bpp` bytes per pixel).
fn noise(w: usize, h: usize, bpp: usize, seed: u32) -> Vec<Vec<u8>> {
    let mut s = seed;
    (0..h)
        .map(|_| {
            (0..w * bpp)
                .map(|_| {
                    s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (s >> 16) as u8
                })
                .collect()
        })
        .collect()
}

#[test]
fn png_height_fields_match_mujoco_field_by_field() {
    let d = tmp("match");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("grey8.png", png(3, 2, 0, 8, &[vec![7, 10, 20], vec![30, 40, 250]], None)),
        ("noise.png", png(17, 9, 0, 8, &noise(17, 9, 1, 1), None)),
        ("grey16.png", png(5, 4, 0, 16, &noise(5, 4, 2, 2), None)),
        ("grey-alpha.png", png(4, 3, 4, 8, &noise(4, 3, 2, 3), None)),
        ("rgb.png", png(6, 3, 2, 8, &noise(6, 3, 3, 4), None)),
        ("rgba16.png", png(3, 7, 6, 16, &noise(3, 7, 8, 5), None)),
        ("grey2.png", png(4, 2, 0, 2, &[vec![0b0001_1011], vec![0b1110_0100]], None)),
        ("palette.png", png(3, 2, 3, 8, &[vec![0, 1, 2], vec![3, 2, 1]], Some(&[10, 20, 30, 200, 100, 50, 0, 0, 255]))),
        ("const.png", png(2, 2, 0, 8, &[vec![9, 9], vec![9, 9]], None)),
        ("UPPER.PNG", png(2, 3, 0, 8, &noise(2, 3, 1, 6), None)),
    ];
    for (file, bytes) in &cases {
        std::fs::write(d.join(file), bytes).unwrap();
        assert_matches(&scene(&d, &format!("{file}.xml"), &format!("file=\"{file}\" size=\"1 2 0.5 0.1\"")));
    }
    // content_type over the extension, meshdir, and nrow/ncol/elevation ignored beside a file
    std::fs::copy(d.join("noise.png"), d.join("noise.dat")).unwrap();
    assert_matches(&scene(&d, "ct.xml", "file=\"noise.dat\" content_type=\"image/png\" size=\"2 1 0.3 0.2\""));
    assert_matches(&scene(
        &d,
        "both.xml",
        "file=\"grey8.png\" nrow=\"4\" ncol=\"4\" elevation=\"1 2\" size=\"1 1 1 1\"",
    ));
}

#[test]
fn a_different_elevation_is_reported() {
    let d = tmp("differs");
    std::fs::write(d.join("t.png"), png(3, 2, 0, 8, &[vec![7, 10, 20], vec![30, 40, 250]], None)).unwrap();
    let path = scene(&d, "t.xml", "file=\"t.png\" size=\"1 2 0.5 0.1\"");
    // one float32 step is within tolerance, two are not
    let CheckOutcome::Compared(cmp) = check_file_tampered(&path, |m| {
        m.hfield_data[4] = f32::from_bits(m.hfield_data[4].to_bits() + 2);
    }) else {
        panic!("both compile")
    };
    assert!(cmp.mismatches.iter().any(|m| m.field == "hfield_data" && m.index == 4), "{:?}", cmp.mismatches);
    // the rows in the file's order (not flipped) differ too
    let CheckOutcome::Compared(cmp) = check_file_tampered(&path, |m| {
        let (top, bottom) = m.hfield_data.split_at_mut(3);
        top.swap_with_slice(bottom);
    }) else {
        panic!("both compile")
    };
    assert!(!cmp.matched());
}

#[test]
fn bad_pngs_are_rejected_by_both_with_file_and_line() {
    let d = tmp("bad");
    let mut bytes = png(3, 2, 0, 8, &[vec![1, 2, 3], vec![4, 5, 6]], None);
    let n = bytes.len();
    bytes[n - 20] ^= 1; // inside the IDAT data: its CRC no longer matches
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("crc.png", bytes),
        ("garbage.png", b"not a png at all".to_vec()),
        ("row.png", png(3, 1, 0, 8, &[vec![1, 2, 3]], None)),
    ];
    for (file, bytes) in &cases {
        std::fs::write(d.join(file), bytes).unwrap();
        let path = scene(&d, &format!("{file}.xml"), &format!("file=\"{file}\" size=\"1 1 1 1\""));
        match check_file(&path) {
            CheckOutcome::BothRejected { c, rust } => {
                assert!(c.contains(file), "{c}");
                let at = format!("{}:3:5: ", path.display());
                assert!(rust.contains(&at) && rust.contains(file), "{rust}");
            }
            other => panic!("{file}: {other:?}"),
        }
    }
}

#[test]
fn cli_check_reports_match_on_a_png_scene() {
    let d = tmp("cli");
    std::fs::write(d.join("t.png"), png(8, 5, 2, 8, &noise(8, 5, 3, 7), None)).unwrap();
    let path = scene(&d, "t.xml", "file=\"t.png\" size=\"1 2 0.5 0.1\"");
    let out = Command::new(env!("CARGO_BIN_EXE_specula")).arg("check").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(": match"), "{text}");
}
