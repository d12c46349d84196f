//! Height fields from files: PNG images written here with the `png` crate's encoder (and
//! MuJoCo's binary format), compiled and compared with values worked out by hand from the
//! pixels (rows flipped to bottom-first, then `(v - min) / (max - min)` in `f32`).

use std::path::{Path, PathBuf};

use specula_model::{load_str, Model};

/// A fresh directory for one test.
fn tmp(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("specula-hfield-png-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes a PNG of `color`/`depth` with the given packed rows.
fn write_png(path: &Path, w: u32, h: u32, color: png::ColorType, depth: png::BitDepth, data: &[u8]) {
    write_png_palette(path, w, h, color, depth, data, None);
}

fn write_png_palette(
    path: &Path,
    w: u32,
    h: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
    palette: Option<&[u8]>,
) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut enc = png::Encoder::new(file, w, h);
    enc.set_color(color);
    enc.set_depth(depth);
    if let Some(p) = palette {
        enc.set_palette(p.to_vec());
    }
    let mut writer = enc.write_header().unwrap();
    writer.write_image_data(data).unwrap();
    writer.finish().unwrap();
}

/// A scene with one hfield asset (`attrs` added to it) and a geom using it.
fn scene(attrs: &str) -> String {
    format!(
        "<mujoco>\n  <asset>\n    <hfield name=\"h\" size=\"1 2 0.5 0.1\" {attrs}/>\n  </asset>\n  \
         <worldbody>\n    <geom type=\"hfield\" hfield=\"h\"/>\n  </worldbody>\n</mujoco>\n"
    )
}

fn compile(dir: &Path, xml: &str) -> Model {
    load_str(xml, dir, "<test>").unwrap_or_else(|e| panic!("{e}"))
}

/// Pixel values (top row first) to MuJoCo's data: rows flipped, then normalised in `f32`.
fn by_hand(rows: &[&[u8]]) -> Vec<f32> {
    let all: Vec<f32> = rows.iter().rev().flat_map(|r| r.iter().map(|&v| f32::from(v))).collect();
    let lo = all.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = all.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    all.iter().map(|&v| (v - lo) / (hi - lo)).collect()
}

fn assert_bits(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "sample {i}: {g} vs {w}");
    }
}

#[test]
fn grey8_rows_are_flipped_and_normalised() {
    let d = tmp("grey8");
    write_png(&d.join("t.png"), 3, 2, png::ColorType::Grayscale, png::BitDepth::Eight, &[7, 10, 20, 30, 40, 250]);
    let m = compile(&d, &scene("file=\"t.png\""));
    assert_eq!((m.nhfield, m.hfield_nrow[0], m.hfield_ncol[0]), (1, 2, 3));
    assert_eq!(m.hfield_size[0], [1.0, 2.0, 0.5, 0.1]);
    // bottom row first: 30 40 250, then 7 10 20; min 7, max 250
    let want: [f32; 6] = [23.0 / 243.0, 33.0 / 243.0, 1.0, 0.0, 3.0 / 243.0, 13.0 / 243.0];
    assert_bits(&m.hfield_data, &want);
    assert_bits(&m.hfield_data, &by_hand(&[&[7, 10, 20], &[30, 40, 250]]));
}

#[test]
fn non_square_image_gives_rows_and_columns() {
    let d = tmp("tall");
    let px: Vec<u8> = (0..10).map(|i| i * 9).collect();
    write_png(&d.join("tall.png"), 2, 5, png::ColorType::Grayscale, png::BitDepth::Eight, &px);
    let m = compile(&d, &scene("file=\"tall.png\""));
    assert_eq!((m.hfield_nrow[0], m.hfield_ncol[0]), (5, 2));
    let rows: Vec<&[u8]> = px.chunks(2).collect();
    assert_bits(&m.hfield_data, &by_hand(&rows));
}

#[test]
fn grey16_keeps_the_high_byte() {
    let d = tmp("grey16");
    // 0x0100 0x01ff 0x0200 / 0x0000 0x00ff 0x0300: high bytes 1 1 2 / 0 0 3
    let be: Vec<u8> =
        [0x0100u16, 0x01ff, 0x0200, 0x0000, 0x00ff, 0x0300].iter().flat_map(|v| v.to_be_bytes()).collect();
    write_png(&d.join("t.png"), 3, 2, png::ColorType::Grayscale, png::BitDepth::Sixteen, &be);
    let m = compile(&d, &scene("file=\"t.png\""));
    assert_bits(&m.hfield_data, &[0.0, 0.0, 1.0, 1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0]);
}

#[test]
fn colour_images_use_the_red_channel() {
    let d = tmp("rgb");
    let rgb = [10, 200, 30, 100, 0, 0, 0, 255, 0, 50, 50, 50, 255, 0, 255, 5, 6, 7];
    write_png(&d.join("rgb.png"), 3, 2, png::ColorType::Rgb, png::BitDepth::Eight, &rgb);
    let want = by_hand(&[&[10, 100, 0], &[50, 255, 5]]);
    assert_bits(&compile(&d, &scene("file=\"rgb.png\"")).hfield_data, &want);
    // alpha is ignored
    let rgba: Vec<u8> = rgb.chunks(3).enumerate().flat_map(|(i, p)| [p[0], p[1], p[2], (i * 40) as u8]).collect();
    write_png(&d.join("rgba.png"), 3, 2, png::ColorType::Rgba, png::BitDepth::Eight, &rgba);
    assert_bits(&compile(&d, &scene("file=\"rgba.png\"")).hfield_data, &want);
    // palette entries: their red; an index past the palette reads 0
    let pal = [10, 20, 30, 200, 100, 50, 0, 0, 255];
    write_png_palette(
        &d.join("p.png"),
        3,
        2,
        png::ColorType::Indexed,
        png::BitDepth::Eight,
        &[0, 1, 2, 2, 1, 7],
        Some(&pal),
    );
    let m = compile(&d, &scene("file=\"p.png\""));
    assert_bits(&m.hfield_data, &by_hand(&[&[10, 200, 0], &[0, 200, 0]]));
}

#[test]
fn low_bit_depths_and_constant_images() {
    let d = tmp("low");
    // 4-bit grey: 0 1 2 15 / 3 4 5 6
    write_png(&d.join("g4.png"), 4, 2, png::ColorType::Grayscale, png::BitDepth::Four, &[0x01, 0x2f, 0x34, 0x56]);
    let m = compile(&d, &scene("file=\"g4.png\""));
    assert_bits(&m.hfield_data, &by_hand(&[&[0, 1, 2, 15], &[3, 4, 5, 6]]));
    write_png(&d.join("c.png"), 2, 2, png::ColorType::Grayscale, png::BitDepth::Eight, &[9; 4]);
    assert_bits(&compile(&d, &scene("file=\"c.png\"")).hfield_data, &[0.0; 4]);
}

#[test]
fn binary_format_is_not_flipped() {
    let d = tmp("bin");
    let vals = [0.1f32, 0.7, 0.3, 0.2, 0.9, 0.33];
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&3i32.to_le_bytes());
    bytes.extend_from_slice(&2i32.to_le_bytes());
    vals.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
    std::fs::write(d.join("t.bin"), &bytes).unwrap();
    let m = compile(&d, &scene("file=\"t.bin\""));
    assert_eq!((m.hfield_nrow[0], m.hfield_ncol[0]), (3, 2));
    let want: Vec<f32> = vals.iter().map(|&v| (v - 0.1) / (0.9f32 - 0.1)).collect();
    assert_bits(&m.hfield_data, &want);
    bytes.extend_from_slice(&[0; 4]);
    std::fs::write(d.join("long.bin"), &bytes).unwrap();
    let e = load_str(&scene("file=\"long.bin\""), &d, "<test>").unwrap_err();
    assert!(e.message.contains("unexpected file size"), "{e}");
}

#[test]
fn file_wins_over_nrow_ncol_and_elevation_and_names_the_asset() {
    let d = tmp("wins");
    std::fs::create_dir_all(d.join("terrain")).unwrap();
    write_png(&d.join("terrain/hill.png"), 2, 2, png::ColorType::Grayscale, png::BitDepth::Eight, &[1, 2, 3, 4]);
    let m = compile(&d, &scene("file=\"terrain/hill.png\" nrow=\"5\" ncol=\"5\" elevation=\"1 2 3\""));
    assert_eq!((m.hfield_nrow[0], m.hfield_ncol[0]), (2, 2));
    assert_bits(&m.hfield_data, &by_hand(&[&[1, 2], &[3, 4]]));
    // meshdir applies; an unnamed hfield is named after its file
    let xml =
        "<mujoco>\n  <compiler meshdir=\"terrain\"/>\n  <asset>\n    <hfield file=\"hill.png\" size=\"1 1 1 1\"/>\n  \
               </asset>\n  <worldbody>\n    <geom type=\"hfield\" hfield=\"hill\"/>\n  </worldbody>\n</mujoco>\n";
    let m = compile(&d, xml);
    assert_eq!(m.hfield_names, ["hill"]);
    // content_type decides over the extension
    std::fs::copy(d.join("terrain/hill.png"), d.join("hill.dat")).unwrap();
    let m = compile(&d, &scene("file=\"hill.dat\" content_type=\"image/png\""));
    assert_eq!(m.hfield_nrow[0], 2);
}

/// Compiles `attrs`'s scene in `d`, expecting an error on line 3 whose message has `needle`.
fn fails(d: &Path, attrs: &str, needle: &str) {
    match load_str(&scene(attrs), d, "scene.xml") {
        Ok(_) => panic!("{attrs}: expected an error containing '{needle}'"),
        Err(e) => {
            assert!(e.message.contains(needle), "message '{}' lacks '{needle}'", e.message);
            assert_eq!((e.pos.line, e.pos.col), (3, 5), "{e}");
            assert!(e.to_string().starts_with("scene.xml:3:5: "), "{e}");
        }
    }
}

#[test]
fn bad_files_are_errors_at_the_element() {
    let d = tmp("bad");
    std::fs::write(d.join("garbage.png"), b"this is not a png").unwrap();
    fails(&d, "file=\"garbage.png\"", "error decoding PNG file 'garbage.png'");
    std::fs::write(d.join("empty.png"), b"").unwrap();
    fails(&d, "file=\"empty.png\"", "empty PNG file 'empty.png'");
    write_png(&d.join("ok.png"), 3, 2, png::ColorType::Grayscale, png::BitDepth::Eight, &[1, 2, 3, 4, 5, 6]);
    let mut bytes = std::fs::read(d.join("ok.png")).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x40; // inside the IDAT chunk: its CRC no longer matches
    std::fs::write(d.join("crc.png"), &bytes).unwrap();
    fails(&d, "file=\"crc.png\"", "error decoding PNG file 'crc.png'");
    std::fs::write(d.join("cut.png"), &bytes[..40]).unwrap();
    fails(&d, "file=\"cut.png\"", "error decoding PNG file 'cut.png'");
    fails(&d, "file=\"missing.png\"", "could not open hfield file");
    write_png(&d.join("row.png"), 3, 1, png::ColorType::Grayscale, png::BitDepth::Eight, &[1, 2, 3]);
    fails(&d, "file=\"row.png\"", "hfield dimensions must be at least 2 in file 'row.png'");
    fails(&d, "file=\"ok.png\" content_type=\"image/jpeg\"", "unsupported content type: 'image/jpeg'");
    // a malformed content type falls back to the binary format, which this file is not
    fails(&d, "file=\"ok.png\" content_type=\"image\"", "unexpected file size in file 'ok.png'");
}
