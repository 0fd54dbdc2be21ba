//! NumPy `.npy` arrays through the npyz crate.

use crate::error::Result;
use std::path::Path;

/// A 2-D array read from an npy file, row-major.
pub struct Field2d {
    /// [ny, nx].
    pub shape: [usize; 2],
    /// Row-major values.
    pub data: Vec<f64>,
}

/// Reads a float32 or float64 2-D array. Errors are plain text; the caller adds the scene key.
pub fn read_f64_2d(path: &Path) -> Result<Field2d, String> {
    let bytes = crate::io::files::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let npy = npyz::NpyFile::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("{} is not a readable .npy file: {e}", path.display()))?;
    let shape: Vec<usize> = npy.shape().iter().map(|&s| s as usize).collect();
    let [rows, cols] = shape[..] else {
        return Err(format!("{} has {} dimensions, expected 2", path.display(), shape.len()));
    };
    let fortran = npy.order() == npyz::Order::Fortran;
    let dtype = npy.dtype();
    let npyz::DType::Plain(ts) = &dtype else {
        return Err(format!(
            "{} has a structured dtype, expected float32 or float64",
            path.display()
        ));
    };
    let data: Vec<f64> = match (ts.type_char(), ts.size_field()) {
        (npyz::TypeChar::Float, 4) => npy.into_vec::<f32>().map(|v| v.into_iter().map(f64::from).collect()),
        (npyz::TypeChar::Float, 8) => npy.into_vec::<f64>(),
        _ => {
            return Err(format!(
                "{} has dtype {ts}, expected float32 or float64",
                path.display()
            ))
        }
    }
    .map_err(|e| format!("{}: {e}", path.display()))?;
    let data = if fortran {
        (0..rows * cols).map(|k| data[(k % cols) * rows + k / cols]).collect()
    } else {
        data
    };
    Ok(Field2d {
        shape: [rows, cols],
        data,
    })
}

/// Writes a float32 array of shape `[ny, nx]` atomically.
pub fn write_f32_2d(path: &Path, ny: usize, nx: usize, data: &[f32]) -> Result<()> {
    write_2d(path, ny, nx, data)
}

/// Writes an array of shape `[ny, nx]` (f32, f64, i32…) atomically.
pub fn write_2d<T: npyz::AutoSerialize + Copy>(path: &Path, ny: usize, nx: usize, data: &[T]) -> Result<()> {
    write_nd(path, &[ny, nx], data)
}

/// Writes an array of any `shape` (C order; f32, f64, i32…) atomically.
pub fn write_nd<T: npyz::AutoSerialize + Copy>(path: &Path, shape: &[usize], data: &[T]) -> Result<()> {
    use npyz::WriterBuilder;
    debug_assert_eq!(shape.iter().product::<usize>(), data.len());
    let shape: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
    super::atomic::write_with(path, |w| {
        let mut writer = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&shape)
            .writer(w)
            .begin_nd()?;
        writer.extend(data.iter().copied())?;
        writer.finish()
    })
}
