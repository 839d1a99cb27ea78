package middleware

import (
	"encoding/base64"
	"errors"
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// Auth resolves the Authorization header to a user: "Bearer TOKEN" or "Basic base64(LOGIN:TOKEN)" (the shape of
// WordPress application passwords). No header means anonymous. A wrong, malformed or revoked credential is 401,
// never treated as anonymous, so a client with a broken credential learns of it at once. Failed attempts count
// against the client's address; once it has none left, credentials from it are not even checked (429).
func Auth(store *models.Store, failures *AuthFailures) gin.HandlerFunc {
	return func(c *gin.Context) {
		header := c.GetHeader("Authorization")
		if header == "" {
			c.Next()
			return
		}
		if failures.blocked(c) {
			return
		}
		login, secret, ok := parseCredentials(header)
		if !ok {
			failures.failed(c)
			reject(c, "The Authorization header must be \"Bearer TOKEN\" or \"Basic base64(login:token)\".")
			return
		}
		user, err := store.WithContext(c.Request.Context()).Authenticate(c.Request.Context(), login, secret)
		if errors.Is(err, models.ErrNotFound) {
			failures.failed(c)
			reject(c, "The credentials are invalid or have been revoked.")
			return
		}
		if err != nil {
			_ = c.Error(err)
			c.Abort()
			return
		}
		c.Request = c.Request.WithContext(models.WithUser(c.Request.Context(), user))
		c.Next()
	}
}

func parseCredentials(header string) (login, secret string, ok bool) {
	scheme, value, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found {
		return "", "", false
	}
	value = strings.TrimSpace(value)
	switch strings.ToLower(scheme) {
	case "bearer":
		return "", value, value != ""
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return "", "", false
		}
		login, secret, found = strings.Cut(string(raw), ":")
		// Application passwords are often shown in groups separated by spaces; accept them pasted that way.
		secret = strings.ReplaceAll(secret, " ", "")
		return login, secret, found && login != "" && secret != ""
	}
	return "", "", false
}

func reject(c *gin.Context, message string) {
	_ = c.Error(&models.Error{Kind: models.KindUnauthorized, Code: "rest_invalid_credentials", Message: message})
	c.Abort()
}
