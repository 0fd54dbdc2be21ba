//! Fixed-length lists in a scene read whole: serde's `[f64; N]` takes the first N numbers of a
//! TOML array and drops the rest without a word (`window = [0.1, 0.2, 0.3]` ran as [0.1, 0.2]).
//! These readers take the list and refuse any other length, saying how many it had.

use serde::de::{Deserialize, Deserializer, Error};

fn exactly<E: Error, const N: usize>(values: Vec<f64>) -> Result<[f64; N], E> {
    let count = values.len();
    values
        .try_into()
        .map_err(|_| E::custom(format!("must be a list of {N} numbers (got {count})")))
}

/// `[f64; N]`, exactly N numbers.
pub fn array<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<[f64; N], D::Error> {
    exactly(Vec::<f64>::deserialize(d)?)
}

/// `Option<[f64; N]>`, exactly N numbers where given.
pub fn option<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<Option<[f64; N]>, D::Error> {
    Option::<Vec<f64>>::deserialize(d)?.map(exactly).transpose()
}

/// `Vec<[f64; N]>`, each entry exactly N numbers.
pub fn list<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<Vec<[f64; N]>, D::Error> {
    Vec::<Vec<f64>>::deserialize(d)?.into_iter().map(exactly).collect()
}
