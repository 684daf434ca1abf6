// One texture per heatmap, re-made only when its matrix's version changes; unused ones are freed.
#include "ui/picture/heatmap_cache.h"

#include "ui/picture/heatmap_math.h"

#include <algorithm>
#include <cmath>

namespace attnlab
{

HeatmapCache::~HeatmapCache()
{
    clear();
}

void HeatmapCache::set_provider(TextureProvider* provider)
{
    clear();
    provider_ = provider;
}

const HeatmapEntry& HeatmapCache::get(const std::string& key, unsigned long long version, const Mat& m,
                                      bool probability, const Mat* mask, bool stretch)
{
    HeatmapEntry& e = entries_[key];
    e.last_used_frame = frame_;
    const int rows = static_cast<int>(m.rows());
    const int cols = static_cast<int>(m.cols());
    const bool fresh = e.version == version && e.rows == rows && e.cols == cols &&
                       e.probability == probability && e.stretch == stretch &&
                       (e.texture != 0 || provider_ == nullptr);
    if (fresh)
        return e;
    e.version = version;
    e.rows = rows;
    e.cols = cols;
    e.probability = probability;
    e.stretch = stretch;
    e.range = value_range(m.data(), static_cast<std::size_t>(m.size()));
    e.scale = choose_scale(e.range, probability,
                           stretch ? stretch_top(m.data(), static_cast<std::size_t>(m.size())) : 0.0f);
    e.texels = texels_per_cell(rows, cols);
    if (provider_ == nullptr || rows == 0 || cols == 0)
        return e;
    if (cols > kMaxTextureColumns)
    {
        // Wider than a texture may be (GPT-2's 50,257 logits a row): each texel column shows the value of
        // largest magnitude among the columns it covers, so no strong logit or probability is lost.
        const int bin = (cols + kMaxTextureColumns - 1) / kMaxTextureColumns;
        const int shown = (cols + bin - 1) / bin;
        binned_.resize(rows, shown);
        for (int c = 0; c < shown; ++c)
        {
            const int first = c * bin, last = std::min(cols, first + bin);
            for (int r = 0; r < rows; ++r)
            {
                float best = m(r, first);
                for (int k = first + 1; k < last; ++k)
                    if (std::fabs(m(r, k)) > std::fabs(best) || std::isnan(m(r, k)))
                        best = m(r, k);
                binned_(r, c) = best;
            }
        }
        e.texels = 1;
        fill_heatmap_pixels(binned_.data(), rows, shown, e.scale, 1, pixels_);
        if (e.texture == 0)
            e.texture = provider_->create_texture(shown, rows, pixels_.data());
        else
            provider_->update_texture(e.texture, shown, rows, pixels_.data());
        ++uploads_;
        return e;
    }
    fill_heatmap_pixels(m.data(), rows, cols, e.scale, e.texels, pixels_);
    if (mask != nullptr && mask->rows() == rows && mask->cols() == cols)
    {
        // Paint masked cells as −∞ (a weight of exactly 0 because the key was not allowed).
        const int k = e.texels;
        const int w = cols * k;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                if (std::isinf((*mask)(r, c)))
                    for (int dy = 0; dy < k; ++dy)
                        for (int dx = 0; dx < k; ++dx)
                            pixels_[static_cast<std::size_t>((r * k + dy) * w + c * k + dx)] =
                                k >= 4 && (dx + dy) % 4 == 0 ? kNegInfStripe : kNegInfColor;
    }
    if (e.texture == 0)
        e.texture = provider_->create_texture(cols * e.texels, rows * e.texels, pixels_.data());
    else
        provider_->update_texture(e.texture, cols * e.texels, rows * e.texels, pixels_.data());
    ++uploads_;
    return e;
}

void HeatmapCache::end_frame(int keep_frames)
{
    for (auto it = entries_.begin(); it != entries_.end();)
    {
        if (frame_ - it->second.last_used_frame > static_cast<std::uint64_t>(keep_frames))
        {
            if (provider_ != nullptr && it->second.texture != 0)
                provider_->destroy_texture(it->second.texture);
            it = entries_.erase(it);
        }
        else
            ++it;
    }
    ++frame_;
}

void HeatmapCache::clear()
{
    if (provider_ != nullptr)
        for (auto& kv : entries_)
            if (kv.second.texture != 0)
                provider_->destroy_texture(kv.second.texture);
    entries_.clear();
}

} // namespace attnlab
