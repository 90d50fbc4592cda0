package docqa;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.ar.ArabicAnalyzer;
import org.apache.lucene.analysis.bg.BulgarianAnalyzer;
import org.apache.lucene.analysis.bn.BengaliAnalyzer;
import org.apache.lucene.analysis.br.BrazilianAnalyzer;
import org.apache.lucene.analysis.ca.CatalanAnalyzer;
import org.apache.lucene.analysis.charfilter.HTMLStripCharFilter;
import org.apache.lucene.analysis.cjk.CJKAnalyzer;
import org.apache.lucene.analysis.ckb.SoraniAnalyzer;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.core.LetterTokenizer;
import org.apache.lucene.analysis.core.LowerCaseFilter;
import org.apache.lucene.analysis.core.UpperCaseFilter;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.cz.CzechAnalyzer;
import org.apache.lucene.analysis.da.DanishAnalyzer;
import org.apache.lucene.analysis.de.GermanAnalyzer;
import org.apache.lucene.analysis.de.GermanLightStemFilter;
import org.apache.lucene.analysis.el.GreekAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishMinimalStemFilter;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.KStemFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.es.SpanishAnalyzer;
import org.apache.lucene.analysis.es.SpanishLightStemFilter;
import org.apache.lucene.analysis.et.EstonianAnalyzer;
import org.apache.lucene.analysis.eu.BasqueAnalyzer;
import org.apache.lucene.analysis.fa.PersianAnalyzer;
import org.apache.lucene.analysis.fi.FinnishAnalyzer;
import org.apache.lucene.analysis.fr.FrenchAnalyzer;
import org.apache.lucene.analysis.fr.FrenchLightStemFilter;
import org.apache.lucene.analysis.ga.IrishAnalyzer;
import org.apache.lucene.analysis.gl.GalicianAnalyzer;
import org.apache.lucene.analysis.hi.HindiAnalyzer;
import org.apache.lucene.analysis.hu.HungarianAnalyzer;
import org.apache.lucene.analysis.hy.ArmenianAnalyzer;
import org.apache.lucene.analysis.id.IndonesianAnalyzer;
import org.apache.lucene.analysis.it.ItalianAnalyzer;
import org.apache.lucene.analysis.it.ItalianLightStemFilter;
import org.apache.lucene.analysis.lt.LithuanianAnalyzer;
import org.apache.lucene.analysis.lv.LatvianAnalyzer;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.RemoveDuplicatesTokenFilter;
import org.apache.lucene.analysis.miscellaneous.TrimFilter;
import org.apache.lucene.analysis.nl.DutchAnalyzer;
import org.apache.lucene.analysis.no.NorwegianAnalyzer;
import org.apache.lucene.analysis.pt.PortugueseAnalyzer;
import org.apache.lucene.analysis.pt.PortugueseLightStemFilter;
import org.apache.lucene.analysis.ro.RomanianAnalyzer;
import org.apache.lucene.analysis.ru.RussianAnalyzer;
import org.apache.lucene.analysis.ru.RussianLightStemFilter;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.sv.SwedishAnalyzer;
import org.apache.lucene.analysis.th.ThaiAnalyzer;
import org.apache.lucene.analysis.tr.TurkishAnalyzer;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractIndexAnalyzerProvider;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.Analysis;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.index.analysis.NormalizingTokenFilterFactory;
import org.elasticsearch.index.analysis.PreBuiltAnalyzerProviderFactory;
import org.elasticsearch.index.analysis.PreConfiguredCharFilter;
import org.elasticsearch.index.analysis.PreConfiguredTokenFilter;
import org.elasticsearch.index.analysis.PreConfiguredTokenizer;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.indices.analysis.PreBuiltCacheFactory.CachingStrategy;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * DocQA test stand-in for Elasticsearch's {@code analysis-common} module, which is
 * not published to Maven Central for 8.x.
 *
 * Registers the built-in language analyzers ("english", "french", ...) the same way
 * analysis-common does — Lucene's language analyzers with their default stop words,
 * configurable via "stopwords"/"stopwords_path"/"stem_exclusion" — plus the handful of
 * common tokenizers/filters/char filters custom analyzers usually reference
 * (whitespace, keyword, letter, lowercase, uppercase, asciifolding, porter_stem, kstem,
 * stemmer, trim, unique, html_strip). Anything else from analysis-common (synonyms,
 * ngrams, word_delimiter, pattern_*, ...) is NOT available here.
 */
public class DocqaAnalysisPlugin extends Plugin implements AnalysisPlugin {

    /** name -> (default stop set, (stopwords, stemExclusion) -> analyzer). */
    private record Lang(String name, Supplier<CharArraySet> defaultStop, BiFunction<CharArraySet, CharArraySet, Analyzer> ctor) {}

    private static final List<Lang> LANGS = List.of(
        new Lang("arabic", ArabicAnalyzer::getDefaultStopSet, ArabicAnalyzer::new),
        new Lang("armenian", ArmenianAnalyzer::getDefaultStopSet, ArmenianAnalyzer::new),
        new Lang("basque", BasqueAnalyzer::getDefaultStopSet, BasqueAnalyzer::new),
        new Lang("bengali", BengaliAnalyzer::getDefaultStopSet, BengaliAnalyzer::new),
        new Lang("brazilian", BrazilianAnalyzer::getDefaultStopSet, BrazilianAnalyzer::new),
        new Lang("bulgarian", BulgarianAnalyzer::getDefaultStopSet, BulgarianAnalyzer::new),
        new Lang("catalan", CatalanAnalyzer::getDefaultStopSet, CatalanAnalyzer::new),
        new Lang("cjk", CJKAnalyzer::getDefaultStopSet, (stop, excl) -> new CJKAnalyzer(stop)),
        new Lang("czech", CzechAnalyzer::getDefaultStopSet, CzechAnalyzer::new),
        new Lang("danish", DanishAnalyzer::getDefaultStopSet, DanishAnalyzer::new),
        new Lang("dutch", DutchAnalyzer::getDefaultStopSet, DutchAnalyzer::new),
        new Lang("english", EnglishAnalyzer::getDefaultStopSet, EnglishAnalyzer::new),
        new Lang("estonian", EstonianAnalyzer::getDefaultStopSet, EstonianAnalyzer::new),
        new Lang("finnish", FinnishAnalyzer::getDefaultStopSet, FinnishAnalyzer::new),
        new Lang("french", FrenchAnalyzer::getDefaultStopSet, FrenchAnalyzer::new),
        new Lang("galician", GalicianAnalyzer::getDefaultStopSet, GalicianAnalyzer::new),
        new Lang("german", GermanAnalyzer::getDefaultStopSet, GermanAnalyzer::new),
        new Lang("greek", GreekAnalyzer::getDefaultStopSet, (stop, excl) -> new GreekAnalyzer(stop)),
        new Lang("hindi", HindiAnalyzer::getDefaultStopSet, HindiAnalyzer::new),
        new Lang("hungarian", HungarianAnalyzer::getDefaultStopSet, HungarianAnalyzer::new),
        new Lang("indonesian", IndonesianAnalyzer::getDefaultStopSet, IndonesianAnalyzer::new),
        new Lang("irish", IrishAnalyzer::getDefaultStopSet, IrishAnalyzer::new),
        new Lang("italian", ItalianAnalyzer::getDefaultStopSet, ItalianAnalyzer::new),
        new Lang("latvian", LatvianAnalyzer::getDefaultStopSet, LatvianAnalyzer::new),
        new Lang("lithuanian", LithuanianAnalyzer::getDefaultStopSet, LithuanianAnalyzer::new),
        new Lang("norwegian", NorwegianAnalyzer::getDefaultStopSet, NorwegianAnalyzer::new),
        new Lang("persian", PersianAnalyzer::getDefaultStopSet, (stop, excl) -> new PersianAnalyzer(stop)),
        new Lang("portuguese", PortugueseAnalyzer::getDefaultStopSet, PortugueseAnalyzer::new),
        new Lang("romanian", RomanianAnalyzer::getDefaultStopSet, RomanianAnalyzer::new),
        new Lang("russian", RussianAnalyzer::getDefaultStopSet, RussianAnalyzer::new),
        new Lang("sorani", SoraniAnalyzer::getDefaultStopSet, SoraniAnalyzer::new),
        new Lang("spanish", SpanishAnalyzer::getDefaultStopSet, SpanishAnalyzer::new),
        new Lang("swedish", SwedishAnalyzer::getDefaultStopSet, SwedishAnalyzer::new),
        new Lang("thai", ThaiAnalyzer::getDefaultStopSet, (stop, excl) -> new ThaiAnalyzer(stop)),
        new Lang("turkish", TurkishAnalyzer::getDefaultStopSet, TurkishAnalyzer::new)
    );

    private static final class LangAnalyzerProvider extends AbstractIndexAnalyzerProvider<Analyzer> {
        private final Analyzer analyzer;

        LangAnalyzerProvider(Lang lang, Environment env, String name, Settings settings) {
            super(name, settings);
            CharArraySet stop = Analysis.parseStopWords(env, settings, lang.defaultStop().get());
            CharArraySet excl = Analysis.parseStemExclusion(settings, CharArraySet.EMPTY_SET);
            this.analyzer = lang.ctor().apply(stop, excl);
        }

        @Override
        public Analyzer get() {
            return analyzer;
        }
    }

    @Override
    public Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> getAnalyzers() {
        Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> m = new LinkedHashMap<>();
        for (Lang lang : LANGS) {
            m.put(lang.name(), (IndexSettings is, Environment env, String name, Settings s) -> new LangAnalyzerProvider(lang, env, name, s));
        }
        return m;
    }

    @Override
    public List<PreBuiltAnalyzerProviderFactory> getPreBuiltAnalyzerProviderFactories() {
        List<PreBuiltAnalyzerProviderFactory> l = new ArrayList<>();
        for (Lang lang : LANGS) {
            l.add(
                new PreBuiltAnalyzerProviderFactory(
                    lang.name(),
                    CachingStrategy.LUCENE,
                    () -> lang.ctor().apply(lang.defaultStop().get(), CharArraySet.EMPTY_SET)
                )
            );
        }
        return l;
    }

    @Override
    public List<PreConfiguredTokenizer> getPreConfiguredTokenizers() {
        return List.of(
            PreConfiguredTokenizer.singleton("whitespace", WhitespaceTokenizer::new),
            PreConfiguredTokenizer.singleton("keyword", KeywordTokenizer::new),
            PreConfiguredTokenizer.singleton("letter", LetterTokenizer::new)
        );
    }

    @Override
    public List<PreConfiguredTokenFilter> getPreConfiguredTokenFilters() {
        return List.of(
            PreConfiguredTokenFilter.singleton("uppercase", true, UpperCaseFilter::new),
            PreConfiguredTokenFilter.singleton("asciifolding", true, ASCIIFoldingFilter::new),
            PreConfiguredTokenFilter.singleton("porter_stem", false, PorterStemFilter::new),
            PreConfiguredTokenFilter.singleton("kstem", false, KStemFilter::new),
            PreConfiguredTokenFilter.singleton("trim", true, TrimFilter::new),
            PreConfiguredTokenFilter.singleton("unique", false, RemoveDuplicatesTokenFilter::new)
        );
    }

    @Override
    public List<PreConfiguredCharFilter> getPreConfiguredCharFilters() {
        return List.of(PreConfiguredCharFilter.singleton("html_strip", false, HTMLStripCharFilter::new));
    }

    @Override
    public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
        Map<String, AnalysisProvider<TokenFilterFactory>> m = new LinkedHashMap<>();
        m.put("stemmer", (is, env, name, s) -> new StemmerFactory(name, s));
        m.put("asciifolding", (is, env, name, s) -> new AsciiFoldingFactory(name, s));
        m.put("lowercase", (is, env, name, s) -> new SimpleNormalizingFactory(name, s, LowerCaseFilter::new));
        return m;
    }

    private static final class SimpleNormalizingFactory extends AbstractTokenFilterFactory implements NormalizingTokenFilterFactory {
        private final Function<TokenStream, TokenStream> fn;

        SimpleNormalizingFactory(String name, Settings s, Function<TokenStream, TokenStream> fn) {
            super(name, s);
            this.fn = fn;
        }

        @Override
        public TokenStream create(TokenStream ts) {
            return fn.apply(ts);
        }
    }

    private static final class AsciiFoldingFactory extends AbstractTokenFilterFactory implements NormalizingTokenFilterFactory {
        private final boolean preserveOriginal;

        AsciiFoldingFactory(String name, Settings s) {
            super(name, s);
            this.preserveOriginal = s.getAsBoolean("preserve_original", false);
        }

        @Override
        public TokenStream create(TokenStream ts) {
            return new ASCIIFoldingFilter(ts, preserveOriginal);
        }

        @Override
        public TokenStream normalize(TokenStream ts) {
            return new ASCIIFoldingFilter(ts, false);
        }
    }

    /** Subset of analysis-common's "stemmer" filter languages. */
    private static final class StemmerFactory extends AbstractTokenFilterFactory {
        private final Function<TokenStream, TokenStream> fn;

        StemmerFactory(String name, Settings s) {
            super(name, s);
            String language = s.get("language", s.get("name", "porter")).toLowerCase(Locale.ROOT);
            this.fn = switch (language) {
                case "english", "porter" -> PorterStemFilter::new;
                case "light_english", "kstem" -> KStemFilter::new;
                case "minimal_english" -> EnglishMinimalStemFilter::new;
                case "possessive_english" -> EnglishPossessiveFilter::new;
                case "porter2" -> ts -> new SnowballFilter(ts, new org.tartarus.snowball.ext.EnglishStemmer());
                case "light_german", "german" -> GermanLightStemFilter::new;
                case "light_french", "french" -> FrenchLightStemFilter::new;
                case "light_spanish", "spanish" -> SpanishLightStemFilter::new;
                case "light_italian", "italian" -> ItalianLightStemFilter::new;
                case "light_portuguese", "portuguese" -> PortugueseLightStemFilter::new;
                case "light_russian", "russian" -> RussianLightStemFilter::new;
                default -> throw new IllegalArgumentException(
                    "stemmer language [" + language + "] is not supported by the DocQA test Elasticsearch build"
                );
            };
        }

        @Override
        public TokenStream create(TokenStream ts) {
            return fn.apply(ts);
        }
    }
}
