//! Why a Rust stage left a call to MuJoCo's function: the model or state was outside the rigid
//! subset the stage covers (`docs/measurements.md` D1 to D12 say what each leaves to the library).

/// Why one call was left to MuJoCo's function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fallback {
    /// Sleep is on and some trees are asleep: MuJoCo then works on the awake ones only.
    Asleep,
    /// `threadlock` is set: the library's thread-pool allocation path.
    ThreadLock,
    /// MuJoCo's stack would overflow (the library raises `mju_error` there).
    StackFull,
    /// The model has plugins.
    Plugin,
    /// The model has flexes.
    Flex,
    /// A body has a Cartesian applied force (`xfrc_applied`, through `mj_applyFT`).
    CartesianForce,
    /// The effective metric is active (`efm_active`).
    EffectiveMetric,
    /// Fluid forces (`viscosity` or `density` not zero) in the implicit integrators' derivative.
    Fluid,
    /// A user callback (`mjcb_passive`).
    Callback,
    /// A transmission outside the stage's subset: an invalid target or an output layout other
    /// than one per actuator for `transmission`, any other than a joint's for the implicit
    /// integrators.
    Transmission,
    /// An actuator outside the built-in types the stage covers (SO3 servos, user types, control
    /// delays, tendon force limits; for the integrators DC motors with a bristle, and under RK4
    /// any DC motor) or asleep.
    Actuator,
    /// Tendon or flex equality constraints (connect, weld and joint ones are in Rust).
    Equality,
    /// Tendons (islands: their rows' trees come from the Jacobian).
    Tendon,
    /// A contact with a flex, or a `condim` other than 1, 3, 4 or 6.
    Contact,
    /// The discrete integrator.
    Discrete,
    /// A sparse Jacobian row without entries.
    EmptyRow,
    /// A dual solver (PGS, noslip) without `efc_AR` or with a sparse `efc_AR` row lacking its
    /// diagonal (`fwdConstraint`).
    SolverPgs,
    /// A call where some island on a sparse Jacobian needs Newton iterations Rust does not do yet
    /// (`fwdConstraint`: a model with flexes whose Hessian 4.0.0 may reorder; D53).
    SolverNewton,
    /// A solver number outside PGS, CG and Newton (the library reports it and solves nothing).
    SolverUnknown,
    /// The Rust stage panicked (a bug; the call was redone by MuJoCo's function).
    Panicked,
    /// Sleep is enabled (the position stage and integrators keep its bookkeeping).
    Sleep,
    /// History buffers (control delays, sensor intervals) the advance updates.
    History,
    /// Plasticity the advance updates.
    Plasticity,
    /// An integrator variant the stage does not cover (a Runge-Kutta order other than 4; the
    /// implicit stage under another integrator).
    Integrator,
}

/// Number of [`Fallback`] reasons.
pub const NFALLBACK: usize = 24;

impl Fallback {
    /// Every reason, in the order of the counts.
    pub const ALL: [Fallback; NFALLBACK] = [
        Fallback::Asleep,
        Fallback::ThreadLock,
        Fallback::StackFull,
        Fallback::Plugin,
        Fallback::Flex,
        Fallback::CartesianForce,
        Fallback::EffectiveMetric,
        Fallback::Fluid,
        Fallback::Callback,
        Fallback::Transmission,
        Fallback::Actuator,
        Fallback::Equality,
        Fallback::Tendon,
        Fallback::Contact,
        Fallback::Discrete,
        Fallback::EmptyRow,
        Fallback::SolverPgs,
        Fallback::SolverNewton,
        Fallback::SolverUnknown,
        Fallback::Panicked,
        Fallback::Sleep,
        Fallback::History,
        Fallback::Plasticity,
        Fallback::Integrator,
    ];

    /// Position in [`Fallback::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Short description for reports (`asleep trees`).
    pub fn describe(self) -> &'static str {
        match self {
            Fallback::Asleep => "asleep trees",
            Fallback::ThreadLock => "threadlock set",
            Fallback::StackFull => "MuJoCo's stack too small",
            Fallback::Plugin => "plugins",
            Fallback::Flex => "flexes",
            Fallback::CartesianForce => "xfrc_applied",
            Fallback::EffectiveMetric => "effective metric",
            Fallback::Fluid => "fluid forces",
            Fallback::Callback => "mjcb_passive",
            Fallback::Transmission => "transmissions outside the subset",
            Fallback::Actuator => "actuator types outside the rigid subset",
            Fallback::Equality => "tendon or flex equalities",
            Fallback::Tendon => "tendons",
            Fallback::Contact => "flex contacts or condim outside 1/3/4/6",
            Fallback::Discrete => "the discrete integrator",
            Fallback::EmptyRow => "empty sparse rows",
            Fallback::SolverPgs => "PGS or noslip without efc_AR or its diagonal",
            Fallback::SolverNewton => "sparse Newton iterations on a reordered Hessian (flexes; not yet in Rust)",
            Fallback::SolverUnknown => "unknown solver type",
            Fallback::Panicked => "the Rust stage panicked",
            Fallback::Sleep => "sleep enabled",
            Fallback::History => "history buffers",
            Fallback::Plasticity => "plasticity",
            Fallback::Integrator => "an integrator variant (a Runge-Kutta order other than 4)",
        }
    }
}

/// Calls left to MuJoCo's function, per stage and reason.
pub type FallbackCounts = [[u64; NFALLBACK]; super::NSTAGE];

/// `"tendon or flex equalities: 70, asleep trees: 30"`: the reasons of one stage's fallbacks, most
/// frequent first; empty when there were none.
pub fn reasons(counts: &[u64; NFALLBACK]) -> String {
    listed(counts).iter().map(|(f, n)| format!("{}: {n}", f.describe())).collect::<Vec<_>>().join(", ")
}

/// The reasons with a count, most frequent first (ties in [`Fallback::ALL`] order).
pub fn listed(counts: &[u64; NFALLBACK]) -> Vec<(Fallback, u64)> {
    let mut list: Vec<(Fallback, u64)> =
        Fallback::ALL.iter().filter(|f| counts[f.index()] > 0).map(|&f| (f, counts[f.index()])).collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.index().cmp(&b.0.index())));
    list
}

/// The reasons with a count as a JSON object (`{"asleep trees": 30}`).
pub fn reasons_json(counts: &[u64; NFALLBACK]) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> =
        listed(counts).into_iter().map(|(f, n)| (f.describe().to_string(), n.into())).collect();
    serde_json::Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_in_index_order_and_reasons_sort_by_count() {
        for (i, f) in Fallback::ALL.iter().enumerate() {
            assert_eq!(f.index(), i, "{f:?}");
        }
        let mut c = [0; NFALLBACK];
        c[Fallback::Asleep.index()] = 30;
        c[Fallback::Equality.index()] = 70;
        assert_eq!(reasons(&c), "tendon or flex equalities: 70, asleep trees: 30");
        assert_eq!(reasons(&[0; NFALLBACK]), "");
    }
}
