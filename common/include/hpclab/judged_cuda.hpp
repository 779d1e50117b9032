// Judged calls that write device memory (see judged.hpp): the outputs are
// copied to the host when the call returns (the copy waits for the call's
// kernels on the default stream) and copied back into the same buffer in
// replay.
//   HPCLAB_CALL([&] { lab07::transpose(d_in.get(), d_out.get(), n); }, hpclab::judged::device_span(d_out.get(), n *
//   n)); HPCLAB_CALL([&] { ... }, d_out);   // a whole hpclab::cuda::DeviceBuffer
#pragma once

#include <vector>

#include "hpclab/cuda.hpp"
#include "hpclab/judged.hpp"

namespace hpclab {
namespace judged {

namespace detail {
// A CudaError thrown by a judged call is thrown again as a CudaError in
// replay (its code is not kept), so EXPECT_THROW(..., CudaError) judges it.
[[noreturn]] inline void throw_cuda_error(const std::string& message) {
    throw cuda::CudaError(cudaErrorUnknown, message);
}
inline bool is_cuda_error(const std::exception& e) { return dynamic_cast<const cuda::CudaError*>(&e) != nullptr; }
inline const bool cuda_error_kind = register_kind({ExceptionKind::cuda_error, is_cuda_error, throw_cuda_error});
}  // namespace detail

template <class T>
struct DeviceSpan {
    T* data;
    std::size_t size;
};
template <class T>
DeviceSpan<T> device_span(T* data, std::size_t size) {
    return {data, size};
}

template <class T>
struct Output<DeviceSpan<T>> {
    static void save(Writer& w, const DeviceSpan<T>& s) {
        std::vector<T> host(s.size);
        if (s.size) HPCLAB_CUDA_CHECK(cudaMemcpy(host.data(), s.data, s.size * sizeof(T), cudaMemcpyDeviceToHost));
        Output<Span<T>>::save(w, Span<T>{host.data(), host.size()});
    }
    static void restore(Reader& r, const DeviceSpan<T>& s) {
        std::vector<T> host(s.size);
        Output<Span<T>>::restore(r, Span<T>{host.data(), host.size()});
        if (s.size) HPCLAB_CUDA_CHECK(cudaMemcpy(s.data, host.data(), s.size * sizeof(T), cudaMemcpyHostToDevice));
    }
};

template <class T>
struct Output<cuda::DeviceBuffer<T>> {
    static void save(Writer& w, const cuda::DeviceBuffer<T>& b) {
        Output<DeviceSpan<T>>::save(w, DeviceSpan<T>{b.get(), b.size()});
    }
    static void restore(Reader& r, cuda::DeviceBuffer<T>& b) {
        Output<DeviceSpan<T>>::restore(r, DeviceSpan<T>{b.get(), b.size()});
    }
};

}  // namespace judged
}  // namespace hpclab
