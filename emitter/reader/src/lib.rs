//! Zero-copy, `no_std` readers for the tables `pcmap` works with.
//!
//! Every format is decoded here once; the `pcmap` command, its verifier and
//! the runtime C API all use these readers.
#![no_std]
