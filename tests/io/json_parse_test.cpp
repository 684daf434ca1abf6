// parse_json_text's own DOM builder gives the same document as nlohmann's callback parser it replaced.
#include "core/io/json_parse.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <set>
#include <string>

namespace
{

using attnlab::kMaxJsonDepth;
using attnlab::parse_json_text;

// The parse parse_json_text did before (nlohmann's callback parser: quadratic in the number of empty
// objects), kept here as the reference the new builder must match.
template <typename Json> Json reference_parse(const std::string& text, bool (*skip)(const std::string&))
{
    return Json::parse(text.begin(), text.end(),
                       [skip](int depth, typename Json::parse_event_t event, Json& value)
                       {
                           if (skip != nullptr && depth == 1 && event == Json::parse_event_t::key &&
                               value.is_string())
                               return !skip(value.template get_ref<const std::string&>());
                           return true;
                       });
}

bool skip_layers(const std::string& key)
{
    static const std::set<std::string> skipped = {"layers", "stages", "tokens"};
    return skipped.count(key) != 0;
}

// A random document: nested objects and arrays (empty ones too), every scalar kind, repeated keys.
std::string random_value(std::mt19937& rng, int depth)
{
    const int kind = static_cast<int>(rng() % (depth > 6 ? 7 : 10));
    const char* keys[] = {"layers", "a", "b", "stages", "W_Q", "tokens", "x", "é"};
    switch (kind)
    {
    case 0:
        return "null";
    case 1:
        return rng() % 2 ? "true" : "false";
    case 2:
        return std::to_string(static_cast<int>(rng() % 2001) - 1000);
    case 3:
        return std::to_string(rng() % 1000) + "." + std::to_string(rng() % 1000) + "e-3";
    case 4:
        return "18446744073709551615";
    case 5:
        return "\"s" + std::to_string(rng() % 10) + "\\n\\u00e9\"";
    case 6:
        return rng() % 2 ? "{}" : "[]";
    case 7:
    case 8:
    {
        std::string s = "{";
        const int n = static_cast<int>(rng() % 5);
        for (int i = 0; i < n; ++i)
            s +=
                std::string(i > 0 ? "," : "") + "\"" + keys[rng() % 8] + "\":" + random_value(rng, depth + 1);
        return s + "}";
    }
    default:
    {
        std::string s = "[";
        const int n = static_cast<int>(rng() % 5);
        for (int i = 0; i < n; ++i)
            s += std::string(i > 0 ? "," : "") + random_value(rng, depth + 1);
        return s + "]";
    }
    }
}

template <typename Json> void expect_same_documents()
{
    std::mt19937 rng(20);
    for (int i = 0; i < 400; ++i)
    {
        // A root object (so top-level keys can be skipped) around a random value, with repeated keys.
        const std::string text = "{\"layers\":" + random_value(rng, 1) + ",\"a\":" + random_value(rng, 1) +
                                 ",\"a\":" + random_value(rng, 1) + ",\"z\":" + random_value(rng, 1) + "}";
        SCOPED_TRACE(text);
        for (bool (*skip)(const std::string&) :
             {static_cast<bool (*)(const std::string&)>(nullptr), &skip_layers})
        {
            Json ours;
            attnlab::JsonRepeatedKey repeated; // the reference keeps the last value of a repeated key
            ASSERT_TRUE(parse_json_text(text, &ours, skip, &repeated).is_ok());
            const Json before = reference_parse<Json>(text, skip);
            EXPECT_EQ(ours, before);
            EXPECT_EQ(ours.dump(), before.dump()) << "same members in the same order";
        }
        const std::string array_root = "[" + random_value(rng, 1) + "," + random_value(rng, 1) + "]";
        Json ours;
        attnlab::JsonRepeatedKey repeated;
        ASSERT_TRUE(parse_json_text(array_root, &ours, nullptr, &repeated).is_ok());
        EXPECT_EQ(ours.dump(), reference_parse<Json>(array_root, nullptr).dump());
    }
}

TEST(JsonParse, TheBuilderGivesTheDocumentTheCallbackParserGave)
{
    expect_same_documents<nlohmann::json>();
    expect_same_documents<nlohmann::ordered_json>();
}

TEST(JsonParse, ManyEmptyObjectsAndScalarRootsParse)
{
    std::string text = "{\"weights\":{\"layers\":[";
    for (int i = 0; i < 1000; ++i)
        text += i > 0 ? ",{}" : "{}";
    text += "]}}";
    nlohmann::json doc;
    ASSERT_TRUE(parse_json_text(text, &doc).is_ok());
    EXPECT_EQ(doc["weights"]["layers"].size(), 1000u);
    EXPECT_EQ(doc, reference_parse<nlohmann::json>(text, nullptr));
    for (const char* scalar : {"3", "\"a\"", "null", "[]", "{}"})
    {
        ASSERT_TRUE(parse_json_text(scalar, &doc).is_ok()) << scalar;
        EXPECT_EQ(doc, nlohmann::json::parse(scalar)) << scalar;
    }
}

TEST(JsonParse, DepthIsBoundedInsideSkippedMembersToo)
{
    const auto nested = [](int levels)
    {
        return std::string(static_cast<std::size_t>(levels), '[') +
               std::string(static_cast<std::size_t>(levels), ']');
    };
    nlohmann::json doc = 7;
    // The root object is one level: kMaxJsonDepth - 1 more fit, one more does not.
    EXPECT_TRUE(parse_json_text("{\"a\":" + nested(kMaxJsonDepth - 1) + "}", &doc).is_ok());
    const attnlab::Status deep =
        parse_json_text("{\"layers\":" + nested(kMaxJsonDepth) + "}", &doc, &skip_layers);
    ASSERT_FALSE(deep.is_ok());
    EXPECT_NE(deep.message().find("nested more than"), std::string::npos) << deep.message();
    doc = 7;
    EXPECT_FALSE(parse_json_text("{\"a\": [1, 2", &doc).is_ok());
    EXPECT_EQ(doc, 7) << "unchanged on error";
}

} // namespace

namespace
{

// A document over the memory budget is refused (and members a reader skips are not counted against it).
TEST(JsonParse, ADocumentOverTheMemoryBudgetIsRefused)
{
    std::string objects = "[";
    for (int i = 0; i < 1000; ++i)
        objects += i > 0 ? ",{}" : "{}";
    objects += "]";
    const std::size_t budget = 1000 * attnlab::kJsonContainerBytes; // about 1000 values, not 1000 containers
    const auto parse = [&](const std::string& text)
    {
        attnlab::detail::JsonDomBuilder<nlohmann::json> builder(text, &skip_layers, budget);
        const bool ok = nlohmann::json::sax_parse(text, &builder);
        return std::pair{ok, builder.status().message()};
    };
    const auto [built, why] = parse("{\"a\":" + objects + "}");
    EXPECT_FALSE(built);
    EXPECT_NE(why.find("the file holds too many values"), std::string::npos) << why;
    EXPECT_TRUE(parse("{\"layers\":" + objects + "}").first) << "a skipped member is not built";
    EXPECT_TRUE(parse("{\"a\":" + objects.substr(0, 1 + 3 * 500 - 1) + "]}").first) << "half of them fit";
}

// A key given twice in one object is refused by default, naming it (nlohmann's last value silently won: a
// session with "version" twice was said to be from a newer program); the same key in two objects is fine.
TEST(JsonParse, AKeyTwiceInOneObjectIsRefusedByName)
{
    nlohmann::json j;
    attnlab::Status s = parse_json_text(R"({"version": 1, "a": {"b": 1}, "version": 5})", &j);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("the key \"version\" appears twice in one object"), std::string::npos)
        << s.message();
    s = parse_json_text(R"({"a": {"n_layer": 2, "n_layer": 7}})", &j);
    EXPECT_NE(s.message().find("\"n_layer\" appears twice"), std::string::npos) << s.message();
    EXPECT_TRUE(parse_json_text(R"({"a": {"x": 1}, "b": {"x": 2}, "x": 3})", &j));
    EXPECT_EQ(j["b"]["x"], 2);
    // A caller that names repeats itself gets the last value and the first repeated key, with the root
    // member it is in (empty at the root).
    attnlab::JsonRepeatedKey repeated;
    ASSERT_TRUE(parse_json_text(R"({"x": 1, "x": 2, "m": {"y": 1, "y": 3}})", &j, nullptr, &repeated));
    EXPECT_EQ(j["x"], 2);
    EXPECT_EQ(j["m"]["y"], 3);
    EXPECT_TRUE(repeated.found);
    EXPECT_EQ(repeated.key, "x");
    EXPECT_EQ(repeated.root_key, "");
    attnlab::JsonRepeatedKey nested;
    ASSERT_TRUE(parse_json_text(R"({"a": 1, "m": {"z": {}, "y": 1, "y": 3}})", &j, nullptr, &nested));
    EXPECT_EQ(nested.key, "y");
    EXPECT_EQ(nested.root_key, "m");
}

// A JSON file saved as UTF-16 is named as such with the fix, not as "byte 1 is a NUL byte"; a stray NUL in
// UTF-8 text still gets its offset.
TEST(JsonParse, Utf16IsNamedAndANulIsPlaced)
{
    nlohmann::json j;
    for (const std::string& text : {std::string("\xFF\xFE{\0}\0", 6), std::string("{\0\"\0a\0\"\0:\0"
                                                                                  "1\0}\0",
                                                                                  14)})
    {
        const attnlab::Status s = parse_json_text(text, &j);
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("the file is UTF-16 text"), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("save it as UTF-8"), std::string::npos) << s.message();
    }
    const attnlab::Status s = parse_json_text(std::string("{\"a\": 1\0}", 10), &j);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("byte 7 is a NUL byte"), std::string::npos) << s.message();
}

} // namespace
