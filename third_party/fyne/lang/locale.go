package lang

import (
	"strings"

	"github.com/jeandeaual/go-locale"
	"golang.org/x/text/language"

	"fyne.io/fyne/v2"
)

// SystemLocale returns the primary locale on the current system.
// This may refer to a language that Fyne does not have translations for.
func SystemLocale() fyne.Locale {
	loc, err := locale.GetLocale()
	if err != nil {
		fyne.LogError("Failed to look up user locale", err)
	}
	tag, err := userTag(loc)
	if err != nil {
		fyne.LogError("Error parsing user locale "+loc, err)
	}
	return localeFromTag(tag)
}

func closestSupportedLocale(locs []string) fyne.Locale {
	matcher := language.NewMatcher(translated)

	tags := make([]language.Tag, len(locs))
	for i, loc := range locs {
		tag, err := userTag(loc)
		if err != nil {
			fyne.LogError("Error parsing user locale "+loc, err)
		}
		tags[i] = tag
	}
	best, _, _ := matcher.Match(tags...)
	return localeFromTag(best)
}

// userTag reads a locale name as the system gives it ("de_DE.UTF-8",
// "C.UTF-8", "POSIX", "") as a language tag. C and POSIX, the default of
// many containers and servers, name no language: they read as English, as
// an empty name does. (Switchboard patch: upstream parsed "C" as a tag and
// logged the failure from a package init, on every command of a program.)
func userTag(loc string) (language.Tag, error) {
	if i := strings.IndexAny(loc, ".@"); i >= 0 {
		loc = loc[:i]
	}
	if len(loc) < 2 || loc == "POSIX" {
		loc = "en"
	}
	return language.Parse(strings.ReplaceAll(loc, "_", "-"))
}

func localeFromTag(in language.Tag) fyne.Locale {
	b, s, r := in.Raw()
	ret := b.String()

	if r.String() != "ZZ" {
		ret += "-" + r.String()

		if s.String() != "Zzzz" {
			ret += "-" + s.String()
		}
	}

	return fyne.Locale(ret)
}
