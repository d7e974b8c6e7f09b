#include "pic/madx.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "base/error.hpp"

namespace partikel::pic {
namespace {

struct Token {
    enum class Kind { name, number, string, punct };
    Kind kind;
    std::string text;  // names lower-cased
    double value = 0.0;
    int line = 0;
};

class Lexer {
public:
    Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

    std::vector<Token> tokens() {
        std::vector<Token> out;
        while (true) {
            skip_space_and_comments();
            if (pos_ >= text_.size()) return out;
            const char c = text_[pos_];
            const int line = line_;
            if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
                std::size_t b = pos_;
                while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                               text_[pos_] == '.' || text_[pos_] == '$'))
                    ++pos_;
                std::string name(text_.substr(b, pos_ - b));
                for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
                out.push_back({Token::Kind::name, name, 0.0, line});
            } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                       (c == '.' && pos_ + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
                std::size_t b = pos_;
                while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) ++pos_;
                if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E' || text_[pos_] == 'd' || text_[pos_] == 'D')) {
                    std::size_t e = pos_ + 1;
                    if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
                    if (e < text_.size() && std::isdigit(static_cast<unsigned char>(text_[e]))) {
                        pos_ = e;
                        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
                    }
                }
                std::string number(text_.substr(b, pos_ - b));
                for (char& ch : number)
                    if (ch == 'd' || ch == 'D') ch = 'e';
                char* end = nullptr;
                const double v = std::strtod(number.c_str(), &end);
                if (end != number.c_str() + number.size()) fail(line, "malformed number '" + number + "'");
                out.push_back({Token::Kind::number, number, v, line});
            } else if (c == '"' || c == '\'') {
                const std::size_t close = text_.find(c, pos_ + 1);
                if (close == std::string_view::npos) fail(line, "unterminated string");
                std::string s(text_.substr(pos_ + 1, close - pos_ - 1));
                for (char ch : s)
                    if (ch == '\n') ++line_;
                pos_ = close + 1;
                out.push_back({Token::Kind::string, s, 0.0, line});
            } else if (c == ':' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=') {
                pos_ += 2;
                out.push_back({Token::Kind::punct, ":=", 0.0, line});
            } else if (std::string_view(":=,;{}()+-*/^").find(c) != std::string_view::npos) {
                ++pos_;
                out.push_back({Token::Kind::punct, std::string(1, c), 0.0, line});
            } else {
                fail(line, std::string("unexpected character '") + (std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "?") + "'");
            }
        }
    }

private:
    [[noreturn]] void fail(int line, const std::string& what) const {
        throw FormatError(file_ + ":" + std::to_string(line) + ": " + what);
    }
    void skip_space_and_comments() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\n') {
                ++line_;
                ++pos_;
            } else if (std::isspace(static_cast<unsigned char>(c))) {
                ++pos_;
            } else if (c == '!' || (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/')) {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
                const int line = line_;
                pos_ += 2;
                while (pos_ + 1 < text_.size() && !(text_[pos_] == '*' && text_[pos_ + 1] == '/')) {
                    if (text_[pos_] == '\n') ++line_;
                    ++pos_;
                }
                if (pos_ + 1 >= text_.size()) fail(line, "unterminated comment");
                pos_ += 2;
            } else {
                return;
            }
        }
    }
    std::string_view text_;
    const std::string& file_;
    std::size_t pos_ = 0;
    int line_ = 1;
};

// An attribute's value: an expression, a {list} of expressions, or a word (apertype=circle).
struct Value {
    std::vector<std::vector<Token>> items;  // one item unless a list
    bool list = false;
    int line = 0;
};

struct Definition {
    std::string root_class;  // drift, quadrupole, ...
    std::map<std::string, Value> attributes;
    int line = 0;
};

struct Placement {
    std::string name;
    Definition definition;
    Value at;
    int line = 0;
};

struct Sequence {
    std::string name;
    Value length;
    std::string refer = "centre";
    std::vector<Placement> placements;
    int line = 0;
};

const std::set<std::string> kClasses = {"drift", "quadrupole", "sbend", "multipole", "rfcavity",
                                        "marker", "monitor", "hmonitor", "vmonitor"};

class Parser {
public:
    Parser(std::string_view text, const std::string& file) : file_(file) { tokens_ = Lexer(text, file).tokens(); }

    Lattice parse() {
        std::size_t i = 0;
        while (i < tokens_.size()) {
            std::size_t end = i;
            while (end < tokens_.size() && !(tokens_[end].kind == Token::Kind::punct && tokens_[end].text == ";")) ++end;
            if (end == tokens_.size()) fail(tokens_[i].line, "missing ';' at the end of the statement");
            const std::vector<Token> statement(tokens_.begin() + std::ptrdiff_t(i), tokens_.begin() + std::ptrdiff_t(end));
            i = end + 1;
            if (statement.empty()) continue;
            if (!execute(statement)) break;  // return / stop
        }
        if (current_) fail(current_->line, "sequence '" + current_->name + "' has no endsequence");
        return build();
    }

private:
    [[noreturn]] void fail(int line, const std::string& what) const {
        throw FormatError(file_ + ":" + std::to_string(line) + ": " + what);
    }
    static bool is(const Token& t, const char* punct) { return t.kind == Token::Kind::punct && t.text == punct; }

    // ---- statements; false ends the input
    bool execute(const std::vector<Token>& s) {
        const Token& first = s[0];
        if (first.kind != Token::Kind::name) fail(first.line, "a statement must start with a name, got '" + first.text + "'");
        std::size_t k = 0;
        if ((first.text == "real" || first.text == "const") && s.size() > 2 && s[1].kind == Token::Kind::name) k = 1;
        const Token& name = s[k];
        if (s.size() > k + 1 && (is(s[k + 1], "=") || is(s[k + 1], ":="))) {
            assign(name, std::vector<Token>(s.begin() + std::ptrdiff_t(k + 2), s.end()), is(s[k + 1], ":="));
            return true;
        }
        if (name.text == "return" || name.text == "stop") return false;
        if (name.text == "endsequence") {
            if (!current_) fail(name.line, "endsequence without sequence");
            sequences_.push_back(std::move(*current_));
            current_.reset();
            return true;
        }
        if (s.size() > 1 && is(s[1], ":")) {
            if (s.size() < 3 || s[2].kind != Token::Kind::name) fail(name.line, "expected 'label: class, ...'");
            define(name, s[2], attributes(s, 3));
            return true;
        }
        command(name, s);
        return true;
    }

    void assign(const Token& name, std::vector<Token> expr, bool deferred) {
        if (expr.empty()) fail(name.line, "missing expression after '" + name.text + "'");
        if (deferred) {
            variables_[name.text] = {std::move(expr), std::nullopt};
        } else {
            const double v = evaluate(expr);
            variables_[name.text] = {{}, v};
        }
    }

    // attr=value pairs from s[from] on: ", name = value, name = {a, b}, ..."
    std::map<std::string, Value> attributes(const std::vector<Token>& s, std::size_t from) {
        std::map<std::string, Value> out;
        std::size_t i = from;
        while (i < s.size()) {
            if (!is(s[i], ",")) fail(s[i].line, "expected ',' before '" + s[i].text + "'");
            ++i;
            if (i >= s.size() || s[i].kind != Token::Kind::name) fail(s[i - 1].line, "expected an attribute name after ','");
            const Token& key = s[i++];
            if (i >= s.size() || !(is(s[i], "=") || is(s[i], ":=")))
                fail(key.line, "expected '=' after attribute '" + key.text + "'");
            ++i;
            Value v;
            v.line = key.line;
            if (i < s.size() && is(s[i], "{")) {
                v.list = true;
                ++i;
                std::vector<Token> item;
                int depth = 0;
                while (true) {
                    if (i >= s.size()) fail(key.line, "unterminated '{' list of '" + key.text + "'");
                    const Token& t = s[i++];
                    if (depth == 0 && (is(t, ",") || is(t, "}"))) {
                        if (item.empty()) fail(t.line, "empty item in the list of '" + key.text + "'");
                        v.items.push_back(std::move(item));
                        item.clear();
                        if (is(t, "}")) break;
                        continue;
                    }
                    if (is(t, "(")) ++depth;
                    if (is(t, ")")) --depth;
                    item.push_back(t);
                }
            } else {
                std::vector<Token> item;
                int depth = 0;
                while (i < s.size() && !(depth == 0 && is(s[i], ","))) {
                    if (is(s[i], "(")) ++depth;
                    if (is(s[i], ")")) --depth;
                    item.push_back(s[i++]);
                }
                if (item.empty()) fail(key.line, "missing value of '" + key.text + "'");
                v.items.push_back(std::move(item));
            }
            for (const auto& item : v.items) check_syntax(item);
            if (!out.emplace(key.text, std::move(v)).second) fail(key.line, "attribute '" + key.text + "' given twice");
        }
        return out;
    }

    void define(const Token& label, const Token& cls, std::map<std::string, Value> attrs) {
        if (cls.text == "sequence") {
            if (current_) fail(label.line, "sequence inside sequence '" + current_->name + "'");
            Sequence seq{label.text, {}, "centre", {}, label.line};
            for (auto& [key, value] : attrs) {
                if (key == "l") seq.length = value;
                else if (key == "refer") seq.refer = word(value);
                else fail(value.line, "unsupported sequence attribute '" + key + "'");
            }
            if (seq.length.items.empty()) fail(label.line, "sequence '" + label.text + "' needs l=");
            if (seq.refer != "centre" && seq.refer != "entry" && seq.refer != "exit")
                fail(label.line, "refer=" + seq.refer + " is not supported (centre, entry, exit)");
            current_ = std::move(seq);
            return;
        }
        Definition d;
        if (kClasses.count(cls.text)) {
            d.root_class = cls.text;
        } else if (auto it = definitions_.find(cls.text); it != definitions_.end()) {
            d = it->second;
        } else {
            fail(cls.line, "unsupported element class '" + cls.text +
                               "' (supported: drift, quadrupole, sbend, multipole, rfcavity, marker, monitor)");
        }
        d.line = label.line;
        std::optional<Value> at;
        for (auto& [key, value] : attrs) {
            if (key == "at") at = value;
            else if (key == "from") fail(value.line, "'from' placements are not supported");
            else d.attributes[key] = value;
        }
        check_attributes(d);
        if (current_) {
            if (!at) fail(label.line, "element '" + label.text + "' in a sequence needs at=");
            current_->placements.push_back({label.text, d, *at, label.line});
        } else {
            if (at) fail(label.line, "at= outside a sequence");
            definitions_[label.text] = std::move(d);
        }
    }

    void command(const Token& name, const std::vector<Token>& s) {
        if (name.text == "title" || name.text == "option") return;  // no effect on the lattice
        if (current_) {
            // a placement: "name, at=..."
            auto attrs = attributes(s, 1);
            auto it = definitions_.find(name.text);
            if (it == definitions_.end()) {
                if (kClasses.count(name.text)) fail(name.line, "place a defined element, not the class '" + name.text + "'");
                fail(name.line, "unknown element '" + name.text + "'");
            }
            std::optional<Value> at;
            for (auto& [key, value] : attrs) {
                if (key == "at") at = value;
                else if (key == "from") fail(value.line, "'from' placements are not supported");
                else fail(value.line, "attribute '" + key + "' in a placement is not supported (define a new element)");
            }
            if (!at) fail(name.line, "placement of '" + name.text + "' needs at=");
            current_->placements.push_back({name.text, it->second, *at, name.line});
            return;
        }
        if (name.text == "beam") {
            beam_ = attributes(s, 1);
            beam_line_ = name.line;
            return;
        }
        if (name.text == "use") {
            for (auto& [key, value] : attributes(s, 1)) {
                if (key == "sequence" || key == "period") use_ = word(value);
                else fail(value.line, "unsupported use attribute '" + key + "'");
            }
            use_line_ = name.line;
            return;
        }
        fail(name.line, "unsupported statement '" + name.text + "'");
    }

    // ---- attribute checks and values
    void check_attributes(const Definition& d) const {
        static const std::map<std::string, std::set<std::string>> allowed = {
            {"drift", {"l"}},
            {"quadrupole", {"l", "k1", "k1s", "tilt"}},
            {"sbend", {"l", "angle", "k1", "k2", "e1", "e2", "h1", "h2", "fint", "fintx", "hgap", "tilt"}},
            {"multipole", {"knl", "ksl", "lrad", "tilt"}},
            {"rfcavity", {"l", "volt", "harmon", "lag"}},
            {"marker", {}},
            {"monitor", {"l"}},
            {"hmonitor", {"l"}},
            {"vmonitor", {"l"}},
        };
        const auto& ok = allowed.at(d.root_class);
        for (const auto& [key, value] : d.attributes)
            if (!ok.count(key) && key != "apertype" && key != "aperture")
                fail(value.line, "unsupported attribute '" + key + "' of a " + d.root_class);
    }

    std::string word(const Value& v) const {
        if (v.list || v.items[0].size() != 1 ||
            (v.items[0][0].kind != Token::Kind::name && v.items[0][0].kind != Token::Kind::string))
            fail(v.line, "expected a name");
        std::string w = v.items[0][0].text;
        for (char& c : w) c = char(std::tolower(static_cast<unsigned char>(c)));
        return w;
    }
    double number(const Value& v) {
        if (v.list) fail(v.line, "expected a number, got a list");
        return evaluate(v.items[0]);
    }
    double number(const Definition& d, const std::string& key, double fallback) {
        auto it = d.attributes.find(key);
        return it == d.attributes.end() ? fallback : number(it->second);
    }
    void require_zero(const Definition& d, const std::string& key, const std::string& what) {
        auto it = d.attributes.find(key);
        if (it == d.attributes.end()) return;
        const Value& v = it->second;
        if (v.list) {
            for (const auto& item : v.items)
                if (evaluate(item) != 0.0) fail(v.line, what + " is not supported");
        } else if (number(v) != 0.0) {
            fail(v.line, what + " is not supported");
        }
    }

    // ---- expressions: recursive descent over a token vector
    // Attributes are evaluated at the end, but their syntax is checked where they are written.
    // A single word (apertype=circle) is a valid expression too.
    void check_syntax(const std::vector<Token>& expr) {
        if (expr.size() == 1 && (expr[0].kind == Token::Kind::string || expr[0].kind == Token::Kind::name)) return;
        syntax_only_ = true;
        try {
            evaluate(expr);
        } catch (...) {
            syntax_only_ = false;
            throw;
        }
        syntax_only_ = false;
    }
    double evaluate(const std::vector<Token>& expr) {
        std::size_t i = 0;
        const double v = sum(expr, i);
        if (i != expr.size()) fail(expr[i].line, "unexpected '" + expr[i].text + "' in an expression");
        // A value is a length, a strength, a count: 1/0 or log(0) is an error here, not a lattice.
        // (The syntax check runs with every variable 1, where sqrt(a - 2) may be NaN.)
        if (!syntax_only_ && !std::isfinite(v))
            fail(expr.empty() ? 0 : expr.front().line, "the expression evaluates to " + std::string(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
        return v;
    }

    // Expressions nest by recursion (parentheses, signs, powers, variables defined by
    // variables): deeper than kMaxDepth is refused with the line, not a stack overflow.
    static constexpr int kMaxDepth = 1000;
    class Nesting {
    public:
        Nesting(Parser& parser, const std::vector<Token>& e, std::size_t i) : parser_(parser) {
            if (++parser_.depth_ > kMaxDepth) {
                --parser_.depth_;
                parser_.fail(e.empty() ? 0 : e[std::min(i, e.size() - 1)].line,
                             "expression nested deeper than " + std::to_string(kMaxDepth) +
                                 " levels (parentheses, signs, powers or variables defined by variables)");
            }
        }
        ~Nesting() { --parser_.depth_; }
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;

    private:
        Parser& parser_;
    };

    double sum(const std::vector<Token>& e, std::size_t& i) {
        const Nesting nesting(*this, e, i);
        double v = product(e, i);
        while (i < e.size() && (is(e[i], "+") || is(e[i], "-"))) {
            const bool plus = is(e[i++], "+");
            const double r = product(e, i);
            v = plus ? v + r : v - r;
        }
        return v;
    }
    double product(const std::vector<Token>& e, std::size_t& i) {
        double v = unary(e, i);
        while (i < e.size() && (is(e[i], "*") || is(e[i], "/"))) {
            const bool times = is(e[i++], "*");
            const double r = unary(e, i);
            v = times ? v * r : v / r;
        }
        return v;
    }
    double unary(const std::vector<Token>& e, std::size_t& i) {
        const Nesting nesting(*this, e, i);
        if (i < e.size() && (is(e[i], "-") || is(e[i], "+"))) {
            const bool minus = is(e[i++], "-");
            const double v = unary(e, i);
            return minus ? -v : v;
        }
        return power(e, i);
    }
    double power(const std::vector<Token>& e, std::size_t& i) {
        const double base = atom(e, i);
        if (i < e.size() && is(e[i], "^")) {
            ++i;
            return std::pow(base, unary(e, i));
        }
        return base;
    }
    double atom(const std::vector<Token>& e, std::size_t& i) {
        if (i >= e.size()) fail(e.empty() ? 0 : e.back().line, "incomplete expression");
        const Token& t = e[i++];
        if (t.kind == Token::Kind::number) return t.value;
        if (is(t, "(")) {
            const double v = sum(e, i);
            if (i >= e.size() || !is(e[i], ")")) fail(t.line, "missing ')'");
            ++i;
            return v;
        }
        if (t.kind != Token::Kind::name) fail(t.line, "unexpected '" + t.text + "' in an expression");
        if (i < e.size() && is(e[i], "(")) {
            static const std::map<std::string, double (*)(double)> functions = {
                {"sqrt", [](double x) { return std::sqrt(x); }}, {"exp", [](double x) { return std::exp(x); }},
                {"log", [](double x) { return std::log(x); }},   {"sin", [](double x) { return std::sin(x); }},
                {"cos", [](double x) { return std::cos(x); }},   {"tan", [](double x) { return std::tan(x); }},
                {"asin", [](double x) { return std::asin(x); }}, {"acos", [](double x) { return std::acos(x); }},
                {"atan", [](double x) { return std::atan(x); }}, {"abs", [](double x) { return std::abs(x); }},
            };
            auto f = functions.find(t.text);
            if (f == functions.end()) fail(t.line, "unknown function '" + t.text + "'");
            ++i;
            const double arg = sum(e, i);
            if (i >= e.size() || !is(e[i], ")")) fail(t.line, "missing ')' after the argument of " + t.text);
            ++i;
            return f->second(arg);
        }
        return variable(t);
    }
    double variable(const Token& t) {
        static const std::map<std::string, double> builtin = {
            {"pi", constants::pi},        {"twopi", 2.0 * constants::pi}, {"degrad", 180.0 / constants::pi},
            {"raddeg", constants::pi / 180.0}, {"e", std::exp(1.0)},      {"clight", constants::c_m_per_s},
            {"pmass", 0.93827208816},     {"nmass", 0.93149410242},      {"emass", 0.51099895000e-3},
        };
        if (auto b = builtin.find(t.text); b != builtin.end()) return b->second;
        if (syntax_only_) return 1.0;
        auto it = variables_.find(t.text);
        if (it == variables_.end()) fail(t.line, "undefined variable '" + t.text + "'");
        Variable& var = it->second;
        if (var.value) return *var.value;
        if (!evaluating_.insert(t.text).second) fail(t.line, "'" + t.text + "' is defined in terms of itself");
        const double v = evaluate(var.expression);
        evaluating_.erase(t.text);
        return v;
    }

    // ---- the lattice from the used sequence
    Lattice build() {
        if (sequences_.empty()) fail(tokens_.empty() ? 1 : tokens_.back().line, "no sequence");
        const Sequence* seq = &sequences_.back();
        if (use_) {
            auto it = std::find_if(sequences_.begin(), sequences_.end(), [&](const Sequence& s) { return s.name == *use_; });
            if (it == sequences_.end()) fail(use_line_, "use: no sequence named '" + *use_ + "'");
            seq = &*it;
        }
        Lattice lattice;
        lattice.name = file_ + " (sequence " + seq->name + ")";
        const double total = number(seq->length);
        if (!(total > 0.0)) fail(seq->line, "sequence length must be positive");
        struct Placed {
            double entry, length;
            const Placement* p;
        };
        std::vector<Placed> placed;
        for (const Placement& p : seq->placements) {
            const double L = number(p.definition, "l", 0.0);
            if (L < 0.0) fail(p.line, "negative length of '" + p.name + "'");
            const double at = number(p.at);
            const double entry = seq->refer == "centre" ? at - 0.5 * L : seq->refer == "entry" ? at : at - L;
            placed.push_back({entry, L, &p});
        }
        std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.entry < b.entry; });
        double s = 0.0;
        int gaps = 0;
        const double tolerance = 1e-9 * total;
        for (const Placed& q : placed) {
            if (q.entry < s - tolerance)
                fail(q.p->line, "'" + q.p->name + "' overlaps the element before it (starts at " + std::to_string(q.entry) +
                                    " m, the previous ends at " + std::to_string(s) + " m)");
            if (q.entry > s + tolerance)
                add_drift(lattice, "drift_" + std::to_string(++gaps), q.entry - s, q.p->line);
            append(lattice, *q.p, q.length);
            s = std::max(s, q.entry) + q.length;
        }
        if (s > total + tolerance) fail(seq->line, "elements extend beyond the sequence length");
        if (total > s + tolerance)
            add_drift(lattice, "drift_" + std::to_string(++gaps), total - s, seq->line);
        if (beam_) read_beam(lattice);
        return lattice;
    }

    void add_drift(Lattice& lattice, std::string name, double length, int line) const {
        Element d = make_element(ElementKind::drift, std::move(name), length);
        d.source = file_ + ":" + std::to_string(line);
        lattice.elements.push_back(std::move(d));
    }

    void append(Lattice& lattice, const Placement& p, double L) {
        const Definition& d = p.definition;
        Element e;
        e.name = p.name;
        e.source = file_ + ":" + std::to_string(p.line);
        e.length_m = L;
        if (auto a = d.attributes.find("apertype"); a != d.attributes.end()) {
            const std::string type = word(a->second);
            auto ap = d.attributes.find("aperture");
            if (ap == d.attributes.end() || !ap->second.list) fail(a->second.line, "apertype needs aperture={...}");
            std::vector<double> v;
            for (const auto& item : ap->second.items) v.push_back(evaluate(item));
            if (type == "circle" && !v.empty() && v[0] > 0.0) {
                e.aperture = {Aperture::Shape::circle, v[0], v[0]};
            } else if (type == "ellipse" && v.size() >= 2 && v[0] > 0.0 && v[1] > 0.0) {
                e.aperture = {Aperture::Shape::ellipse, v[0], v[1]};
            } else {
                fail(a->second.line, "apertype=" + type + " is not supported (circle {r}, ellipse {a, b})");
            }
        } else if (d.attributes.count("aperture")) {
            fail(d.attributes.at("aperture").line, "aperture without apertype");
        }
        const std::string& c = d.root_class;
        if (c == "drift") {
            e.kind = ElementKind::drift;
        } else if (c == "quadrupole") {
            require_zero(d, "k1s", "a skew quadrupole (k1s)");
            require_zero(d, "tilt", "a tilted quadrupole");
            if (!(L > 0.0)) fail(p.line, "quadrupole '" + p.name + "' needs l > 0 (a thin one is a multipole)");
            e.kind = ElementKind::quadrupole;
            e.k1_per_m2 = number(d, "k1", 0.0);
        } else if (c == "sbend") {
            for (const char* key : {"k1", "k2", "e1", "e2", "h1", "h2", "fint", "fintx", "hgap", "tilt"})
                require_zero(d, key, std::string("sbend attribute ") + key);
            if (!(L > 0.0)) fail(p.line, "sbend '" + p.name + "' needs l > 0");
            e.kind = ElementKind::sbend;
            e.angle_rad = number(d, "angle", 0.0);
        } else if (c == "multipole") {
            require_zero(d, "ksl", "a skew multipole (ksl)");
            require_zero(d, "tilt", "a tilted multipole");
            e.kind = ElementKind::multipole;
            if (auto k = d.attributes.find("knl"); k != d.attributes.end()) {
                const Value& v = k->second;
                if (!v.list) fail(v.line, "knl must be a list {k0l, k1l, ...}");
                if (v.items.size() > e.knl.size()) fail(v.line, "knl beyond order 5 is not supported");
                for (std::size_t n = 0; n < v.items.size(); ++n) e.knl[n] = evaluate(v.items[n]);
                if (e.knl[0] != 0.0) fail(v.line, "dipole kicks (knl[0] != 0) are not supported");
            }
            if (L > 0.0) fail(p.line, "multipole '" + p.name + "' must be thin");
        } else if (c == "rfcavity") {
            Element cavity = e;
            cavity.kind = ElementKind::rf_cavity;
            cavity.length_m = 0.0;
            cavity.voltage_V = number(d, "volt", 0.0) * 1e6;
            cavity.harmonic = number(d, "harmon", 0.0);
            cavity.phase_rad = 2.0 * constants::pi * number(d, "lag", 0.0);
            if (!(cavity.harmonic > 0.0)) fail(p.line, "rfcavity '" + p.name + "' needs harmon > 0");
            if (L > 0.0) {  // drift, thin cavity, drift
                add_drift(lattice, p.name, 0.5 * L, p.line);
                Element half = lattice.elements.back();
                lattice.elements.push_back(cavity);
                half.aperture = e.aperture;
                lattice.elements.push_back(half);
                return;
            }
            e = cavity;
        } else if (c == "marker") {
            e.kind = ElementKind::marker;
        } else {  // monitors; a long one is a drift with the observation point at its exit
            if (L > 0.0) add_drift(lattice, p.name, L, p.line);
            e.kind = ElementKind::monitor;
            e.length_m = 0.0;
        }
        lattice.elements.push_back(e);
    }

    void read_beam(Lattice& lattice) {
        const std::map<std::string, Value>& b = *beam_;
        for (const auto& [key, value] : b)
            if (key != "particle" && key != "mass" && key != "charge" && key != "energy" && key != "pc" &&
                key != "gamma" && key != "npart")
                fail(value.line, "unsupported beam attribute '" + key + "'");
        auto get = [&](const char* key) -> std::optional<double> {
            auto it = b.find(key);
            if (it == b.end()) return std::nullopt;
            return number(it->second);
        };
        const std::string particle = b.count("particle") ? word(b.at("particle")) : "proton";
        double mass_GeV = 0.0;
        double charge = 1.0;
        if (particle == "proton") {
            mass_GeV = 0.93827208816;
        } else if (particle == "ion") {
            if (!get("mass")) fail(beam_line_, "beam: particle=ion needs mass= (GeV)");
            mass_GeV = *get("mass");
            charge = get("charge").value_or(1.0);
        } else {
            fail(beam_line_, "beam: particle=" + particle + " is not supported (proton, ion)");
        }
        double energy_GeV = 0.0;
        if (auto E = get("energy")) energy_GeV = *E;
        else if (auto pc = get("pc")) energy_GeV = std::sqrt(*pc * *pc + mass_GeV * mass_GeV);
        else if (auto g = get("gamma")) energy_GeV = *g * mass_GeV;
        else fail(beam_line_, "beam: give energy=, pc= or gamma=");
        if (!(energy_GeV > mass_GeV)) fail(beam_line_, "beam: the total energy must exceed the rest energy");
        ParticleSpecies s;
        s.Z = int(std::lround(charge));
        if (s.Z < 1 || std::abs(charge - s.Z) > 1e-9) fail(beam_line_, "beam: charge must be a positive integer");
        s.A = particle == "proton" ? 1 : int(std::lround(mass_GeV / 0.93149410242));
        if (s.A < 1) s.A = 1;
        s.mass_kg = mass_GeV * 1e9 * constants::e_C / (constants::c_m_per_s * constants::c_m_per_s);
        s.kinetic_energy_per_nucleon_eV = (energy_GeV - mass_GeV) * 1e9 / s.A;
        lattice.species = s;
        if (auto n = get("npart")) lattice.intensity = *n;
    }

    struct Variable {
        std::vector<Token> expression;
        std::optional<double> value;
    };

    std::string file_;
    std::vector<Token> tokens_;
    std::map<std::string, Variable> variables_;
    std::set<std::string> evaluating_;
    bool syntax_only_ = false;
    int depth_ = 0;  // expression levels being evaluated (Nesting)
    std::map<std::string, Definition> definitions_;
    std::vector<Sequence> sequences_;
    std::optional<Sequence> current_;
    std::optional<std::map<std::string, Value>> beam_;
    int beam_line_ = 0;
    std::optional<std::string> use_;
    int use_line_ = 0;
};

}  // namespace

Lattice parse_madx(std::string_view text, const std::string& file_name) { return Parser(text, file_name).parse(); }

}  // namespace partikel::pic
