// The words every command uses for the problems they all meet, one function each, so that `info`,
// `convert`, `audio` and `frames` say them alike. Each returns the loom::Error to throw or print; its
// what() reads "<path>: <message>".
#pragma once

#include <filesystem>
#include <string_view>

#include "loom/codec/error.h"
#include "loom/codec/sniff.h"

namespace loom::cli {

// An input named on the command line that does not exist (a dangling symbolic link included):
// Error(kIo, input, "no such file or folder").
Error missing_input(const std::filesystem::path& input);

// An output that exists when the run may neither replace nor keep it:
// Error(kIo, output, "already exists (--overwrite replaces it, --skip-existing keeps it)").
Error existing_output(const std::filesystem::path& output);

// An input whose bytes are not of the kind the command reads (`wanted`: "image", "audio", "video", or a
// list such as "image, audio or video"), with what they are instead:
// Error(kInvalidInput, input, "not an image file (png data | unknown format | empty file)").
// `found` is the sniffed format (kUnknown for an unreadable or empty file).
Error not_media_file(const std::filesystem::path& input, std::string_view wanted, Format found);

}  // namespace loom::cli
