//! `mj_island`: constraint islands (`docs/measurements.md` D12).
