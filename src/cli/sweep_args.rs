//! The CLI's parsers of `specula sweep`'s shard options (`--shard`, Slurm's array variables):
//! argument handling, kept in the binary. The sweep's own option values are parsed by
//! [`specula::sweep::request`], which the Python package shares.

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
