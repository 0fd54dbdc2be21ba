// One step's index within the current submit, bound with a dynamic offset into a buffer of one
// slot per step (`StepSlot` in Rust mirrors it).
struct StepSlot {
    index: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}
