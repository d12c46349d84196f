//! The CLI's parsers of `specula sweep`'s option values (speeds, timesteps, direction, shard,
//! lists of names, Slurm's array variables): argument handling, kept in the binary.

use specula::sweep::preset;

/// Parses a list of names with `parse`, naming the choices when one is unknown.
pub(super) fn parse_list<T: PartialEq>(
    what: &str,
    text: &str,
    parse: impl Fn(&str) -> Option<T>,
    choices: &[&str],
) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    for name in text.split(',').map(str::trim) {
        let v =
            parse(name).ok_or_else(|| format!("unknown {what} '{name}' (expected one of {})", choices.join(", ")))?;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(out)
}

fn number(text: &str, what: &str) -> Result<f64, String> {
    let v: f64 = text.trim().parse().map_err(|_| format!("{what}: '{}' is not a number", text.trim()))?;
    if !v.is_finite() {
        return Err(format!("{what}: '{}' is not a finite number", text.trim()));
    }
    Ok(v)
}

/// `--speeds`: `start:stop:step` (inclusive) or a comma list, in m/s; every speed at least 0.
pub(super) fn parse_speeds(text: &str) -> Result<Vec<f64>, String> {
    let speeds = match text.split(':').collect::<Vec<_>>()[..] {
        [lo, hi, step] => {
            let (lo, hi, step) = (number(lo, "--speeds")?, number(hi, "--speeds")?, number(step, "--speeds")?);
            if step <= 0.0 {
                return Err(format!("--speeds {text}: the step must be positive"));
            }
            if hi < lo {
                return Err(format!("--speeds {text} is empty: the stop is below the start"));
            }
            preset::speeds(lo, hi, step)
        }
        [list] if !list.trim().is_empty() => {
            list.split(',').map(|s| number(s, "--speeds")).collect::<Result<Vec<_>, _>>()?
        }
        [_] => return Err("--speeds is empty".into()),
        _ => return Err(format!("--speeds {text}: expected start:stop:step or a comma-separated list")),
    };
    if let Some(v) = speeds.iter().find(|v| **v < 0.0) {
        return Err(format!("--speeds {text}: {v} m/s is negative (the direction says where the body goes)"));
    }
    Ok(speeds)
}

/// `--timesteps`: a comma list of durations with a unit (`1.25ms`, `500us`, `0.001s`; a bare
/// number is in seconds), each positive.
pub(super) fn parse_timesteps(text: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim) {
        let (num, scale) = if let Some(n) = item.strip_suffix("ms") {
            (n, 1e-3)
        } else if let Some(n) = item.strip_suffix("us").or_else(|| item.strip_suffix("µs")) {
            (n, 1e-6)
        } else if let Some(n) = item.strip_suffix('s') {
            (n, 1.0)
        } else {
            (item, 1.0)
        };
        let v = number(num, "--timesteps")?;
        if v <= 0.0 {
            return Err(format!("--timesteps: '{item}' is not a positive timestep"));
        }
        // Rounded to whole picoseconds, so that 1.25ms is 0.00125 and not 0.0012500000000000002.
        let h = (v * scale * 1e12).round() / 1e12;
        if !out.contains(&h) {
            out.push(h);
        }
    }
    Ok(out)
}

/// `--direction x,y,z`: any non-zero vector, returned as a unit vector.
pub(super) fn parse_direction(text: &str) -> Result<[f64; 3], String> {
    let v: Vec<f64> = text.split(',').map(|s| number(s, "--direction")).collect::<Result<_, _>>()?;
    let [x, y, z] = v[..] else {
        return Err(format!("--direction {text}: expected three numbers x,y,z"));
    };
    let n = (x * x + y * y + z * z).sqrt();
    if n == 0.0 || !n.is_finite() {
        return Err(format!("--direction {text} has zero length: it gives no direction"));
    }
    Ok([x / n, y / n, z / n])
}

/// `--shard I/N`, 1-based.
pub(super) fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {text}: expected I/N with 1 <= I <= N");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
    if n == 0 || i == 0 || i > n {
        return Err(format!("--shard {text} is out of range: I must be between 1 and N"));
    }
    Ok((i, n))
}

/// The shard Slurm's job array gives this task, from `SLURM_ARRAY_TASK_ID` and
/// `SLURM_ARRAY_TASK_COUNT` (`var` reads the environment). Task ids start at
/// `SLURM_ARRAY_TASK_MIN` (Slurm sets it; without it, at 0 when this task is 0 and at 1
/// otherwise) and go up by `SLURM_ARRAY_TASK_STEP` (default 1). `Ok(None)` outside an array job.
pub(super) fn slurm_shard(var: impl Fn(&str) -> Option<String>) -> Result<Option<(usize, usize)>, String> {
    let Some(id) = var("SLURM_ARRAY_TASK_ID") else { return Ok(None) };
    let int = |name: &str, text: &str| {
        text.trim().parse::<usize>().map_err(|_| format!("{name}={text} is not a non-negative whole number"))
    };
    let id = int("SLURM_ARRAY_TASK_ID", &id)?;
    let count = var("SLURM_ARRAY_TASK_COUNT")
        .ok_or("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: pass --shard I/N")?;
    let count = int("SLURM_ARRAY_TASK_COUNT", &count)?;
    let min = match var("SLURM_ARRAY_TASK_MIN") {
        Some(m) => int("SLURM_ARRAY_TASK_MIN", &m)?,
        None => usize::from(id != 0),
    };
    let step = match var("SLURM_ARRAY_TASK_STEP") {
        Some(s) => int("SLURM_ARRAY_TASK_STEP", &s)?.max(1),
        None => 1,
    };
    let out_of_range = || {
        format!(
            "Slurm array task {id} is out of range: the array has {count} tasks from {min} in steps of {step} \
             (SLURM_ARRAY_TASK_ID, _COUNT, _MIN, _STEP)"
        )
    };
    if count == 0 || id < min || (id - min) % step != 0 {
        return Err(out_of_range());
    }
    let i = (id - min) / step + 1;
    if i > count {
        return Err(out_of_range());
    }
    Ok(Some((i, count)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_ranges_are_inclusive_and_exact() {
        assert_eq!(parse_speeds("1:3:0.5").unwrap(), [1.0, 1.5, 2.0, 2.5, 3.0]);
        assert_eq!(parse_speeds("2, 5,10").unwrap(), [2.0, 5.0, 10.0]);
        assert!(parse_speeds("").is_err());
        assert!(parse_speeds("3:1:1").is_err());
        assert!(parse_speeds("1:3:0").is_err());
        assert!(parse_speeds("-1,2").is_err());
    }

    #[test]
    fn timesteps_take_units() {
        assert_eq!(parse_timesteps("1.25ms,0.625ms").unwrap(), [0.00125, 0.000625]);
        assert_eq!(parse_timesteps("500us,0.002s,0.001").unwrap(), [0.0005, 0.002, 0.001]);
        assert!(parse_timesteps("0ms").is_err());
        assert!(parse_timesteps("fast").is_err());
    }

    #[test]
    fn slurm_task_ids_from_zero_or_one_give_the_same_shards() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(slurm_shard(env(&[])).unwrap(), None);
        let zero = [("SLURM_ARRAY_TASK_ID", "0"), ("SLURM_ARRAY_TASK_COUNT", "4"), ("SLURM_ARRAY_TASK_MIN", "0")];
        assert_eq!(slurm_shard(env(Box::leak(Box::new(zero)))).unwrap(), Some((1, 4)));
        let one = [("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_COUNT", "4"), ("SLURM_ARRAY_TASK_MIN", "1")];
        assert_eq!(slurm_shard(env(Box::leak(Box::new(one)))).unwrap(), Some((4, 4)));
        let bare = [("SLURM_ARRAY_TASK_ID", "0"), ("SLURM_ARRAY_TASK_COUNT", "2")];
        assert_eq!(slurm_shard(env(Box::leak(Box::new(bare)))).unwrap(), Some((1, 2)));
        let over = [("SLURM_ARRAY_TASK_ID", "5"), ("SLURM_ARRAY_TASK_COUNT", "4"), ("SLURM_ARRAY_TASK_MIN", "1")];
        assert!(slurm_shard(env(Box::leak(Box::new(over)))).is_err());
    }
}
