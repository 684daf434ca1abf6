// Where Attention Lab's data (lessons, corpora, built-in models) is found at run time: beside the running
// executable, so the build tree, an installed tree (/usr/bin + /usr/share/attnlab) and a relocated copy all
// work and no source path is baked into the binary.
#pragma once

#include <string>

namespace attnlab
{

// The data folder (the one holding lessons/ and corpora/): $ATTNLAB_ASSETS when set and not empty, else the
// first `share/attnlab` found from the executable's folder (/proc/self/exe) upwards, at most four levels
// (installed: /usr/bin → /usr/share/attnlab; build tree: build/app → build/share/attnlab, a link to the
// source's assets/ that the build makes). "" when there is none: each reader then says which folder it
// needs and which variable sets it.
std::string assets_dir();

// assets_dir() + "/" + sub ("" when there is no data folder).
std::string asset_path(const std::string& sub);

} // namespace attnlab
