// One texture per heatmap, re-made only when its matrix's version changes; unused ones are freed.
#pragma once

#include "core/matrix.h"
#include "ui/picture/colormap.h"
#include "ui/picture/texture_provider.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnlab
{

struct HeatmapEntry
{
    TextureHandle texture = 0;
    int rows = 0, cols = 0;
    int texels = 1; // texels per cell edge
    unsigned long long version = 0;
    bool probability = false;
    bool stretch = false; // probability drawn on [0, max] instead of [0, 1]
    ValueRange range;     // the true range of the matrix
    ColorScale scale;     // what the colours mean
    std::uint64_t last_used_frame = 0;
};

// Textures are at most this many texels wide (OpenGL implementations cap a side at 8,192 or 16,384): a
// wider matrix is drawn with its columns binned (HeatmapCache::get).
inline constexpr int kMaxTextureColumns = 4096;

class HeatmapCache
{
public:
    HeatmapCache() = default;
    ~HeatmapCache();
    HeatmapCache(const HeatmapCache&) = delete;
    HeatmapCache& operator=(const HeatmapCache&) = delete;

    // nullptr: ranges are still computed but no texture is made (entry.texture stays 0).
    void set_provider(TextureProvider* provider);
    TextureProvider* provider() const { return provider_; }

    // The entry for key, recoloured and re-uploaded only when version, the shape or probability changed.
    // mask (optional, same shape): cells where it is −∞ are drawn in the −∞ colour (weights of masked keys).
    const HeatmapEntry& get(const std::string& key, unsigned long long version, const Mat& m,
                            bool probability, const Mat* mask = nullptr, bool stretch = false);

    // Frees textures not used for `keep_frames` frames; call once per frame, after drawing.
    void end_frame(int keep_frames = 120);
    // Frees every texture (before the GL context goes away).
    void clear();

    std::uint64_t frame() const { return frame_; }
    // Uploads (create or update) since start: the tests check that an unchanged trace uploads nothing.
    std::uint64_t uploads() const { return uploads_; }
    std::size_t size() const { return entries_.size(); }
    // The entry for key, or nullptr when it was never drawn (or was freed).
    const HeatmapEntry* find(const std::string& key) const
    {
        const auto it = entries_.find(key);
        return it == entries_.end() ? nullptr : &it->second;
    }

private:
    TextureProvider* provider_ = nullptr;
    std::unordered_map<std::string, HeatmapEntry> entries_;
    std::vector<Color32> pixels_; // scratch, reused
    Mat binned_;                  // scratch: a wide matrix's columns binned
    std::uint64_t frame_ = 1;
    std::uint64_t uploads_ = 0;
};

} // namespace attnlab
