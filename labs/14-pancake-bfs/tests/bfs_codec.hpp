// How the judged tests of lab 14 record a BfsResult (hpclab/judged.hpp):
// field by field, so that the judge reads back exactly what the search gave.
#pragma once

#include "hpclab/judged.hpp"
#include "pancake.hpp"

template <>
struct hpclab::judged::Codec<lab14::BfsResult> {
    static void encode(Writer& w, const lab14::BfsResult& r) {
        put(w, r.level_counts, r.level_fingerprints, r.first, r.owned, r.sent_to_others, r.bit_segments,
            r.spilled_bytes, r.exchange_rounds, r.expand_seconds, r.exchange_seconds);
    }
    static lab14::BfsResult decode(Reader& rd) {
        lab14::BfsResult r;
        get(rd, r.level_counts, r.level_fingerprints, r.first, r.owned, r.sent_to_others, r.bit_segments,
            r.spilled_bytes, r.exchange_rounds, r.expand_seconds, r.exchange_seconds);
        return r;
    }
};
