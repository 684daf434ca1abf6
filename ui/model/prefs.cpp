// Preferences file: theme, font size, presenter mode's size and theme, numbers in cells, open panels and the
// panels the user placed, in the user's config folder.
#include "ui/model/prefs.h"

#include "core/io/atomic_file.h"
#include "ui/model/config_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace attnlab
{

namespace
{

std::string trim(const std::string& s)
{
    const auto a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos)
        return std::string();
    const auto b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

// "x y w h" in fractions: inside 0..1, with a width and a height.
bool parse_place(const std::string& v, PanelPlace* out)
{
    std::istringstream in(v);
    PanelPlace p;
    p.placed = true;
    std::string rest;
    if (!(in >> p.x >> p.y >> p.w >> p.h) || (in >> rest))
        return false;
    const float eps = 1e-4f; // rounding in the written text
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.w > 0.01f && p.h > 0.01f && p.x + p.w <= 1.0f + eps &&
          p.y + p.h <= 1.0f + eps))
        return false;
    *out = p;
    return true;
}

bool parse_bool(const std::string& v, bool* out)
{
    if (v == "1" || v == "true")
        *out = true;
    else if (v == "0" || v == "false")
        *out = false;
    else
        return false;
    return true;
}

} // namespace

std::string config_dir()
{
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    if (xdg != nullptr && xdg[0] == '/')
        return std::string(xdg) + "/attnlab";
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] != '\0')
        return std::string(home) + "/.config/attnlab";
    return std::string();
}

std::string prefs_to_text(const ViewPrefs& prefs)
{
    std::ostringstream out;
    out << "# Attention Lab preferences\n";
    out << "theme = " << (prefs.dark_theme ? "dark" : "light") << "\n";
    out << "font_size = " << prefs.font_size << "\n";
    out << "numbers_in_cells = " << (prefs.numbers_in_cells ? 1 : 0) << "\n";
    out << "stretch_weights = " << (prefs.stretch_weights ? 1 : 0) << "\n";
    out << "pipeline_weights = " << (prefs.pipeline_weights ? 1 : 0) << "\n";
    out << "whole_batch = " << (prefs.whole_batch ? 1 : 0) << "\n";
    out << "presenter_theme = " << (prefs.presenter_light ? "light" : "dark") << "\n";
    for (const PanelFacts& p : kPanelTable)
        out << "panel." << p.key << " = " << (prefs.open[static_cast<std::size_t>(p.id)] ? 1 : 0) << "\n";
    // Panels the user moved or resized: x y w h in fractions of the area under the menu bar.
    for (const PanelFacts& p : kPanelTable)
        if (const PanelPlace& place = prefs.places[static_cast<std::size_t>(p.id)]; place.placed)
            out << "place." << p.key << " = " << place.x << " " << place.y << " " << place.w << " " << place.h
                << "\n";
    return out.str();
}

void prefs_from_text(const std::string& text, ViewPrefs& prefs)
{
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
    {
        const auto eq = line.find('=');
        if (line.empty() || line[0] == '#' || eq == std::string::npos)
            continue;
        const std::string key = trim(line.substr(0, eq));
        const std::string value = trim(line.substr(eq + 1));
        if (key == "theme" && (value == "dark" || value == "light"))
            prefs.dark_theme = value == "dark";
        else if (key == "font_size")
        {
            char* end = nullptr;
            const float f = std::strtof(value.c_str(), &end);
            if (end != value.c_str() && f >= kMinFontSize && f <= kMaxFontSize)
                prefs.font_size = f;
        }
        else if (key == "presenter_scale")
            continue; // written by earlier versions: presenter text starts at 100% on each launch now
        else if (key == "presenter_theme" && (value == "dark" || value == "light"))
            prefs.presenter_light = value == "light";
        else if (key == "numbers_in_cells")
            parse_bool(value, &prefs.numbers_in_cells);
        else if (key == "stretch_weights")
            parse_bool(value, &prefs.stretch_weights);
        else if (key == "pipeline_weights")
            parse_bool(value, &prefs.pipeline_weights);
        else if (key == "whole_batch")
            parse_bool(value, &prefs.whole_batch);
        else
            for (const PanelFacts& p : kPanelTable)
            {
                const auto i = static_cast<std::size_t>(p.id);
                if (key == std::string("panel.") + p.key)
                {
                    bool open = false;
                    if (parse_bool(value, &open))
                        prefs.open[i] = open;
                }
                else if (key == std::string("place.") + p.key)
                    parse_place(value, &prefs.places[i]);
            }
    }
}

Status load_prefs(const std::string& path, ViewPrefs& prefs)
{
    std::string text;
    ATTNLAB_TRY(read_config_file(path, &text, "preferences file", "the default preferences are used"));
    prefs_from_text(text, prefs);
    return Status();
}

Status save_prefs(const std::string& path, const ViewPrefs& prefs)
{
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    AtomicFile file;
    if (Status s = file.open(path, OutputKind::OwnFile); !s.is_ok())
        return s;
    file.write(prefs_to_text(prefs));
    return file.commit();
}

} // namespace attnlab
