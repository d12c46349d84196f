//! A hand-written SVG of pass rate against speed: one panel per case (and timestep, stiffness), one
//! line per route and speculative mode.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::exec::RunResult;

const PANEL_W: f64 = 320.0;
const PANEL_H: f64 = 200.0;
const MARGIN: f64 = 40.0;
const COLUMNS: usize = 3;
const COLOURS: [&str; 6] = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The chart as an SVG document.
pub fn chart(results: &[RunResult]) -> String {
    // Panels in first-seen order; series (route:mode) in first-seen order; points per speed.
    let mut panels: Vec<String> = Vec::new();
    let mut series: Vec<String> = Vec::new();
    let mut data: BTreeMap<(usize, usize), BTreeMap<u64, (usize, usize)>> = BTreeMap::new();
    let (mut vmin, mut vmax) = (f64::INFINITY, f64::NEG_INFINITY);
    for r in results {
        let s = &r.spec;
        let panel = format!(
            "{} {}, h {} ms{}",
            s.scene.name(),
            s.case,
            (s.timestep * 1e6).round() / 1e3,
            if s.stiff { ", stiff" } else { "" }
        );
        let name = format!("{}:{}", s.route.name(), s.mode.name());
        let pi = panels.iter().position(|p| *p == panel).unwrap_or_else(|| {
            panels.push(panel);
            panels.len() - 1
        });
        let si = series.iter().position(|p| *p == name).unwrap_or_else(|| {
            series.push(name);
            series.len() - 1
        });
        let e = data.entry((pi, si)).or_default().entry(s.speed.to_bits()).or_insert((0, 0));
        e.1 += 1;
        if r.outcome.went_through() {
            e.0 += 1;
        }
        vmin = vmin.min(s.speed);
        vmax = vmax.max(s.speed);
    }
    if !vmin.is_finite() {
        (vmin, vmax) = (0.0, 1.0);
    }
    if vmax <= vmin {
        vmax = vmin + 1.0;
    }
    let rows = panels.len().div_ceil(COLUMNS).max(1);
    let (w, h) = (COLUMNS as f64 * (PANEL_W + MARGIN) + MARGIN, rows as f64 * (PANEL_H + 2.0 * MARGIN) + 2.0 * MARGIN);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(out, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    // Legend.
    for (si, name) in series.iter().enumerate() {
        let x = MARGIN + si as f64 * 110.0;
        let c = COLOURS[si % COLOURS.len()];
        let _ = writeln!(out, r#"<line x1="{x}" y1="20" x2="{}" y2="20" stroke="{c}" stroke-width="2"/>"#, x + 20.0);
        let _ = writeln!(out, r#"<text x="{}" y="24">{}</text>"#, x + 25.0, esc(name));
    }
    for (pi, panel) in panels.iter().enumerate() {
        let x0 = MARGIN + (pi % COLUMNS) as f64 * (PANEL_W + MARGIN);
        let y0 = 2.0 * MARGIN + (pi / COLUMNS) as f64 * (PANEL_H + 2.0 * MARGIN);
        let px = |v: f64| x0 + (v - vmin) / (vmax - vmin) * PANEL_W;
        let py = |rate: f64| y0 + (1.0 - rate) * PANEL_H;
        let _ = writeln!(out, r#"<text x="{x0}" y="{}" font-weight="bold">{}</text>"#, y0 - 6.0, esc(panel));
        let _ = writeln!(
            out,
            r##"<rect x="{x0}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#888"/>"##
        );
        for t in [0.0, 0.5, 1.0] {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" text-anchor="end">{:.0}%</text>"#,
                x0 - 3.0,
                py(t) + 4.0,
                t * 100.0
            );
        }
        for v in [vmin, (vmin + vmax) / 2.0, vmax] {
            let _ =
                writeln!(out, r#"<text x="{}" y="{}" text-anchor="middle">{v:.1}</text>"#, px(v), y0 + PANEL_H + 14.0);
        }
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle">speed (m/s), pass rate</text>"#,
            x0 + PANEL_W / 2.0,
            y0 + PANEL_H + 28.0
        );
        for si in 0..series.len() {
            let Some(points) = data.get(&(pi, si)) else { continue };
            let pts: Vec<String> = points
                .iter()
                .map(|(v, (p, n))| format!("{:.2},{:.2}", px(f64::from_bits(*v)), py(*p as f64 / *n as f64)))
                .collect();
            let mut pts_sorted: Vec<(f64, String)> =
                points.keys().map(|v| f64::from_bits(*v)).zip(pts).collect::<Vec<_>>();
            pts_sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
            let line: Vec<String> = pts_sorted.into_iter().map(|(_, p)| p).collect();
            let _ = writeln!(
                out,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
                COLOURS[si % COLOURS.len()],
                line.join(" ")
            );
        }
    }
    out.push_str("</svg>\n");
    out
}
