#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| timelaw::fuzz::check_bytes(&user_crate::SYNC_RETRY, data));
