//! Sets of stages, as `--rust-stages`, `diff --stages` and `SPECULA_STAGES` name them.

use super::Stage;

/// A stage name that is not one of [`Stage::ALL`] (nor `all`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown stage '{0}': expected a comma-separated list of crb, factorM, comVel, rne, fwdAcceleration, comPos, passive, transmission, fwdActuation, makeConstraint, island, projectConstraint, referenceConstraint, kinematics, euler, implicit, fwdConstraint, or all"
)]
pub struct UnknownStage(pub String);

/// A set of stages, parsed from `crb,factorM` or `all`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageSet(u32);

impl StageSet {
    /// No stage: MuJoCo's own functions everywhere.
    pub const NONE: StageSet = StageSet(0);

    /// Every stage specula has.
    pub fn all() -> StageSet {
        Stage::ALL.iter().fold(StageSet::NONE, |s, &st| s.with(st))
    }

    /// This set and `stage`.
    pub fn with(self, stage: Stage) -> StageSet {
        StageSet(self.0 | 1 << stage.index())
    }

    /// Whether `stage` is in the set.
    pub fn contains(self, stage: Stage) -> bool {
        self.0 & 1 << stage.index() != 0
    }

    /// The stages of the set, in step order.
    pub fn stages(self) -> impl Iterator<Item = Stage> {
        Stage::ALL.into_iter().filter(move |&s| self.contains(s))
    }
}

impl std::str::FromStr for StageSet {
    type Err = UnknownStage;

    fn from_str(text: &str) -> Result<StageSet, UnknownStage> {
        let mut set = StageSet::NONE;
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            set = match word {
                "all" => StageSet::all(),
                "none" => set,
                w => match Stage::ALL.iter().find(|s| s.name() == w) {
                    Some(&s) => set.with(s),
                    None => return Err(UnknownStage(w.to_string())),
                },
            };
        }
        Ok(set)
    }
}

impl std::fmt::Display for StageSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.stages().map(Stage::name).collect();
        f.write_str(if names.is_empty() { "none" } else { "" })?;
        f.write_str(&names.join(","))
    }
}
