// `.safetensors` files (Hugging Face's format, github.com/huggingface/safetensors, README "Format"), read strictly:
//
//   8 bytes     N, an unsigned little-endian 64-bit integer: the size of the header
//   N bytes     a UTF-8 JSON object, beginning with '{' and possibly padded at the end with spaces:
//               {"NAME": {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]}, ...,
//                "__metadata__": {"key": "value", ...}}   (optional; a string-to-string map)
//   the rest    the byte buffer; BEGIN and END (one past) are offsets into it, little-endian, C order.
//
// Read as the format's own notes require: no duplicate keys (at any level), the byte buffer entirely indexed
// (no holes, no overlap, no bytes after the last tensor: a polyglot file is refused), END - BEGIN equal to
// prod(shape) x the dtype's size, a header of at most 100 MB (the reference implementation's limit). Tensors of
// shape [] (scalars) and with a zero dimension (no bytes) are valid. Dtypes read: F64, F32, F16 and BF16 (widened
// exactly to double); any other (integers, BOOL, F8_*) is refused by name. NaN and inf entries are read as they
// are (the format allows them; the weight loader refuses them, attention_weights.hpp).
//
// A NUL byte in the header is refused (JSON holds none; the padding is spaces). The file itself is read through
// regular_file.hpp (a regular file of at most kMaxWeightFileBytes), the header checked before the data is read.
//
// Every fault is an ArrayFileError (npy.hpp) with a one-line message naming the file and what is wrong; tensor
// names from the file are printed with control characters escaped, so the message stays one line.
#pragma once
#include "icl/io/npy.hpp"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icl {

struct SafetensorsFile {
  std::vector<std::pair<std::string, NpyArray>> tensors;  // in the header's order; NpyArray::dtype is "F32" etc.
  std::map<std::string, std::string> metadata;            // __metadata__, if any
};

// `name` prefixes error messages (the file name).
SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& name);
SafetensorsFile read_safetensors(const std::string& path);

}  // namespace icl
