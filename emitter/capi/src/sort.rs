//! An in-place heapsort for the C API's two sorts (the ID index and a PC
//! table's entries).
//!
//! Why not `core`'s `sort_unstable`: it brings about 3 KB of text per element
//! type (quicksort, small-sort, heapsort fallback), which put libpcmap over
//! its 100 KB budget on PowerPC64 LE (lit `build/capi-lib.test`). Both sorts
//! run once per call that builds an index, never on a lookup or a walk, so
//! heapsort's O(n log n) with no allocation and a few hundred bytes of code
//! is the better trade here.

/// Sorts `v` so that no element is `less` than the one before it (unstable,
/// like `sort_unstable_by`). `less` must be a strict weak order.
pub(crate) fn heapsort_by<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    // Max-heap in v[..end]: move v[node] down until its children are not
    // greater.
    let sift_down = |v: &mut [T], mut node: usize, end: usize| loop {
        let mut child = 2 * node + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && less(&v[child], &v[child + 1]) {
            child += 1;
        }
        if !less(&v[node], &v[child]) {
            return;
        }
        v.swap(node, child);
        node = child;
    };
    let len = v.len();
    for node in (0..len / 2).rev() {
        sift_down(v, node, len);
    }
    for end in (1..len).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::heapsort_by;

    /// Equal to `sort_unstable` on every length up to 70 and on keys with
    /// many repeats, from a fixed-seed generator.
    #[test]
    fn sorts_as_core_does() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in 0..=70 {
            for modulus in [1, 3, 1000, u64::MAX] {
                let v: Vec<[u64; 3]> = (0..len)
                    .map(|_| [next() % modulus, next() % 2, next()])
                    .collect();
                let (mut ours, mut core) = (v.clone(), v);
                heapsort_by(&mut ours, |a, b| a < b);
                core.sort_unstable();
                assert_eq!(ours, core, "length {len}, keys mod {modulus}");
            }
        }
    }

    /// By a key only: sorted by it, and a permutation of the input.
    #[test]
    fn sorts_by_a_key() {
        let v: Vec<(u64, u32)> = (0..500u32).map(|i| ((i as u64 * 7919) % 97, i)).collect();
        let mut ours = v.clone();
        heapsort_by(&mut ours, |a, b| a.0 < b.0);
        assert!(ours.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut ids: Vec<u32> = ours.iter().map(|e| e.1).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..500).collect::<Vec<_>>());
    }
}
